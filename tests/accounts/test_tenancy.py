import pytest
from django.apps import apps

from accounts.models import Business
from portal.tenancy import (
    TenantManager,
    TenantOwned,
    TenantScopeMissing,
    current_tenant,
    tenant_scope,
    tenant_task,
)
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db


TENANT_OWNED = [m for m in apps.get_models() if issubclass(m, TenantOwned)]


def test_every_tenant_owned_model_is_found():
    names = {m.__name__ for m in TENANT_OWNED}
    assert {"Business", "Membership", "AuditEvent", "SyncRun", "MediaItem"} <= names


@pytest.mark.parametrize("model", TENANT_OWNED, ids=lambda m: m._meta.label)
def test_querying_a_tenant_owned_model_without_a_scope_raises(model):
    assert isinstance(model._default_manager, TenantManager)
    with pytest.raises(TenantScopeMissing):
        list(model.objects.all())


def test_the_scope_limits_queries_to_its_tenant():
    ours, theirs = ResellerFactory(), ResellerFactory()
    mine = BusinessFactory(reseller=ours)
    BusinessFactory(reseller=theirs)
    with tenant_scope(ours):
        assert list(Business.objects.all()) == [mine]
        # Even an explicit filter for the other tenant finds nothing inside our scope.
        assert not Business.objects.filter(reseller=theirs).exists()


def test_the_scope_ends_with_its_block():
    reseller = ResellerFactory()
    with tenant_scope(reseller):
        assert current_tenant() == reseller
    with pytest.raises(TenantScopeMissing):
        current_tenant()


def test_unscoped_is_the_named_bypass():
    BusinessFactory(), BusinessFactory()
    assert Business.unscoped.count() == 2


def test_tenant_task_runs_in_the_scope_of_its_reseller():
    reseller = ResellerFactory()
    BusinessFactory(reseller=reseller)
    BusinessFactory()

    @tenant_task
    def count_businesses(*, reseller_id):
        return Business.objects.count()

    assert count_businesses(reseller_id=reseller.pk) == 1
    with pytest.raises(TenantScopeMissing):
        current_tenant()


def test_related_access_does_not_need_a_scope():
    parent = BusinessFactory()
    child = BusinessFactory(reseller=parent.reseller, parent=parent)
    fetched = Business.unscoped.get(pk=child.pk)
    assert fetched.parent == parent
