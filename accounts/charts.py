"""Charts of businesses."""

from accounts.models import Business
from portal.charts import PALETTE, Segment

STATUS_COLORS = {Business.Status.ACTIVE: PALETTE["ok"], Business.Status.DEMO: PALETTE["info"],
                 Business.Status.INACTIVE: PALETTE["muted"]}  # in the order shown


def status_segments(by_status: dict[str, int]) -> list[Segment]:
    labels = dict(Business.Status.choices)
    known = [Segment(labels[value], by_status.get(value, 0), color)
             for value, color in STATUS_COLORS.items()]
    other = sum(n for status, n in by_status.items() if status not in labels)
    return known + ([Segment("Other", other, PALETTE["extra"])] if other else [])
