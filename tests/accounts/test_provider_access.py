"""The one failure policy of provider calls."""

import pytest

from accounts.models import Reseller
from accounts.provider_access import provider_failure_is_retryable, provider_key_rejected
from provider import AuthError, NotFound, RateLimited, Rejected, Transient
from tests.factories import ResellerFactory

pytestmark = pytest.mark.django_db


def test_a_rejected_key_flags_an_active_reseller_once():
    reseller = ResellerFactory()
    assert provider_key_rejected(tenant=reseller, code=1161) is True
    assert reseller.status == Reseller.Status.KEY_REJECTED
    assert Reseller.objects.get(pk=reseller.pk).status == Reseller.Status.KEY_REJECTED
    assert provider_key_rejected(tenant=reseller, code=1161) is False


def test_a_suspended_reseller_stays_suspended():
    reseller = ResellerFactory(status=Reseller.Status.SUSPENDED)
    assert provider_key_rejected(tenant=reseller, code=1161) is False
    assert Reseller.objects.get(pk=reseller.pk).status == Reseller.Status.SUSPENDED


@pytest.mark.parametrize(("exc", "retry"), [
    (RateLimited(89, "slow down", 429), True),
    (Transient(None, "no answer", None), True),
    (AuthError(1161, "bad key", 401), False),
    (NotFound(1011, "no such business", 404), False),
    (Rejected(2285, "bad field", 400), False),
])
def test_only_passing_failures_are_tried_again(exc, retry):
    assert provider_failure_is_retryable(exc) is retry
