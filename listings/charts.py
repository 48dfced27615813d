"""Charts of listing health."""

from portal.charts import PALETTE, Segment


def health_segments(health: dict[str, int]) -> list[Segment]:
    """The five listing states of sites, in the provider's order, for a chart."""
    return [
        Segment("Synced", health.get("synced", 0), PALETTE["ok"]),
        Segment("Submitted", health.get("submitted", 0), PALETTE["info"]),
        Segment("Needs update", health.get("need_updates", 0), PALETTE["warn"]),
        Segment("Opted out", health.get("opted_out", 0), PALETTE["muted"]),
        Segment("Not connected", health.get("not_connected", 0), PALETTE["bad"]),
    ]
