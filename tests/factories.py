import factory

from accounts.models import Business, Membership, Reseller, Role, User

DEFAULT_PASSWORD = "correct-horse-battery-staple"


class TenantRowFactory(factory.django.DjangoModelFactory):
    """Factories build rows of any tenant on purpose, so they write through `unscoped`."""

    class Meta:
        abstract = True

    @classmethod
    def _get_manager(cls, model_class):
        return model_class.unscoped


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    email = factory.Sequence(lambda n: f"user{n}@example.com")
    full_name = factory.Faker("name")
    password = factory.PostGenerationMethodCall("set_password", DEFAULT_PASSWORD)

    @factory.post_generation
    def _save(obj, create, extracted, **kwargs):  # noqa: N805
        if create:
            obj.save()


class ResellerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Reseller
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"Agency {n}")
    slug = factory.Sequence(lambda n: f"agency-{n}")
    account_number = factory.Sequence(lambda n: 9_000_000_000 + n)
    provider_base_url = "http://127.0.0.1:8000/sandbox"
    # A known limit, so that tests do not wait for a learned one to warm up (tests of the
    # learned limit ask for it).
    rate_limit_auto = False

    @factory.post_generation
    def api_key(obj, create, extracted, **kwargs):  # noqa: N805
        obj.set_api_key(extracted or f"test-key-{obj.slug}-SECRET-{obj.account_number}")
        if create:
            obj.save()


class BusinessFactory(TenantRowFactory):
    class Meta:
        model = Business

    reseller = factory.SubFactory(ResellerFactory)
    remote_id = factory.Sequence(lambda n: 7_000_000_000 + n)
    name = factory.Sequence(lambda n: f"Location {n}")
    type = Business.Type.BUSINESS
    status = Business.Status.ACTIVE
    tree_path = factory.LazyAttribute(lambda o: f"/{o.remote_id}/")
    city = "Austin"
    country_code = "US"


class MembershipFactory(TenantRowFactory):
    class Meta:
        model = Membership

    user = factory.SubFactory(UserFactory)
    reseller = factory.SubFactory(ResellerFactory)
    role = Role.MANAGER


def token_client(membership, role=None, name="test"):
    """An API client authenticated with a new personal token of `membership`'s user, of the
    member's own role unless `role` says otherwise."""
    from rest_framework.test import APIClient

    from accounts.tokens import api_token_create
    from portal.tenancy import tenant_scope

    with tenant_scope(membership.reseller):
        _, plaintext = api_token_create(tenant=membership.reseller, actor=None,
                                        user=membership.user, name=name,
                                        role=role or membership.role)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    return client
