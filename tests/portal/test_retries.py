"""The one retry-delay policy."""

from portal.retries import retry_delay


def test_the_delay_doubles_from_the_base_up_to_the_cap():
    assert [retry_delay(n, base=5, cap=60) for n in range(6)] == [5, 10, 20, 40, 60, 60]


def test_the_providers_wait_wins():
    assert retry_delay(4, base=5, cap=60, suggested=7) == 7
    assert retry_delay(0, base=5, cap=60, suggested=None) == 5


def test_a_negative_count_waits_the_base():
    assert retry_delay(-1, base=30, cap=3600) == 30
