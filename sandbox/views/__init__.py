"""One module per area of the provider's interface; each view is one operation."""
