"""Signals of the outbox, for the apps above it that follow their writes' outcomes."""

from django.dispatch import Signal

# Sent once a row has its final outcome (accepted, rejected or failed), after that outcome
# commits; `entry` is the row. Receivers must not raise: the outcome is already stored.
entry_settled = Signal()
