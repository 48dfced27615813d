"""A review without a rating (the provider's rating 0) is counted but is not a zero-star one."""

from decimal import Decimal

import pytest

from provider.types import ReviewCountByRating, star_average

BREAKDOWN = {5: 519, 4: 327, 3: 167, 2: 73, 1: 84}


@pytest.mark.parametrize("counts", [BREAKDOWN, {**BREAKDOWN, 0: 29},
                                    {str(k): v for k, v in {**BREAKDOWN, 0: 29}.items()}])
def test_the_average_is_over_the_rated_reviews(counts):
    assert star_average(counts) == (1170, Decimal("3.96"))


def test_no_rated_review_has_no_average():
    assert star_average({0: 3}) == (0, None)
    assert star_average({}) == (0, None)


def test_a_reply_gives_its_rated_count_and_average():
    reply = ReviewCountByRating.from_json({"reviewCount": 1199, "countByRating": [
        {"rating": rating, "count": count} for rating, count in {**BREAKDOWN, 0: 29}.items()]})
    assert reply.rated_and_average == (1170, Decimal("3.96"))
