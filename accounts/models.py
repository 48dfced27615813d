from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, BaseUserManager, PermissionsMixin
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Q, Value
from django.db.models.functions import Concat, Upper
from django.utils import timezone

from accounts import credentials
from portal.models import Mirrored
from portal.outbound import url_origin
from portal.tenancy import TenantOwned


class UserManager(BaseUserManager):
    use_in_migrations = True

    def _create(self, email: str, password: str | None, **extra) -> User:
        if not email:
            raise ValueError("Users need an email address.")
        user = self.model(email=self.normalize_email(email).lower(), **extra)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_user(self, email: str, password: str | None = None, **extra) -> User:
        extra.setdefault("is_staff", False)
        extra.setdefault("is_superuser", False)
        return self._create(email, password, **extra)

    def create_superuser(self, email: str, password: str | None = None, **extra) -> User:
        extra.update(is_staff=True, is_superuser=True)
        return self._create(email, password, **extra)


class User(AbstractBaseUser, PermissionsMixin):
    """A person who signs in with an email address."""

    email = models.EmailField(unique=True)
    full_name = models.CharField(max_length=200, blank=True)
    # Blank means the portal's own zone (settings.TIME_ZONE); every date a member reads is shown
    # in this zone, and the zone is named beside it.
    time_zone = models.CharField(max_length=64, blank=True)
    is_active = models.BooleanField(default=True)
    is_staff = models.BooleanField(default=False, help_text="Can sign in to Django admin.")
    date_joined = models.DateTimeField(default=timezone.now)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: list[str] = []

    class Meta:
        ordering = ["email"]

    def __str__(self) -> str:
        return self.email

    def get_full_name(self) -> str:
        return self.full_name or self.email

    def get_short_name(self) -> str:
        return self.full_name.split(" ")[0] if self.full_name else self.email


class WireDialect(models.TextChoices):
    """The names a provider address speaks (provider.dialects): the interface's neutral words
    (the embedded sandbox's default) or the real provider's own (bingListing, gmbListing)."""

    NEUTRAL = "neutral", "Neutral names (the embedded sandbox)"
    PROVIDER = "provider", "The provider's own names (the real provider)"


def validate_time_zone(value: str) -> None:
    """A name of the zone database ("Europe/Paris"), as zoneinfo knows it."""
    import zoneinfo

    if value not in zoneinfo.available_timezones():
        raise ValidationError("“%(zone)s” is not a time zone: choose one from the list, such as "
                              "Europe/Paris or America/New_York.", code="invalid_choice",
                              params={"zone": value})


class Reseller(models.Model):
    """The tenant: an agency with its own provider account and key."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        KEY_REJECTED = "key_rejected", "Key rejected by the provider"
        SUSPENDED = "suspended", "Suspended"

    name = models.CharField(max_length=200)
    slug = models.SlugField(
        max_length=60,
        unique=True,
        validators=[RegexValidator(r"^[a-z0-9][a-z0-9-]*$", "Use lower-case letters, digits, -.")],
    )
    account_number = models.BigIntegerField(
        validators=[MinValueValidator(1)],
        help_text="The provider's business number of this reseller's own account.",
    )
    provider_base_url = models.URLField(max_length=500)
    api_key_encrypted = models.TextField(blank=True, editable=False)
    api_key_fingerprint = models.CharField(max_length=32, blank=True, editable=False)
    api_key_last4 = models.CharField(max_length=4, blank=True, editable=False)
    api_key_updated_at = models.DateTimeField(null=True, blank=True, editable=False)
    # The origin (scheme://host:port) of the base URL the key was entered with: the key is only
    # ever sent there, so whoever can change the base URL cannot have the key sent elsewhere.
    api_key_origin = models.CharField(max_length=500, blank=True, editable=False)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.ACTIVE)
    rate_limit_count = models.PositiveIntegerField(
        default=100, validators=[MinValueValidator(1)],
        help_text="Provider requests allowed per window, shared by every worker.",
    )
    rate_limit_seconds = models.PositiveIntegerField(default=1, validators=[MinValueValidator(1)])
    # The provider publishes no limit (its support gives it, when asked), so a new connection
    # learns it: the shared pacer finds the rate the provider answers without 429s.
    rate_limit_auto = models.BooleanField(
        default=True, help_text="Learn the provider's rate limit instead of using the count.")
    wire_dialect = models.CharField(
        max_length=10, choices=WireDialect.choices, default=WireDialect.NEUTRAL,
        help_text="The names the provider's address speaks on the wire.")
    # The agency's own look in front of its clients (accounts.brand; blank: the portal's own).
    # On this row, which every page of the reseller reads already, so showing it costs nothing;
    # the logo's bytes are apart (BrandLogo).
    brand_product_name = models.CharField(max_length=40, blank=True)
    brand_primary_colour = models.CharField(max_length=7, blank=True, help_text="#rrggbb")
    brand_accent_colour = models.CharField(max_length=7, blank=True, help_text="#rrggbb")
    brand_support_email = models.EmailField(blank=True)
    brand_sender_name = models.CharField(max_length=100, blank=True)
    brand_sender_email = models.EmailField(blank=True)
    # Lower-case, without a port; None rather than "" when unset, so that it stays unique.
    brand_host = models.CharField(max_length=253, null=True, blank=True, unique=True)
    brand_logo_hash = models.CharField(max_length=64, blank=True, editable=False)
    brand_logo_content_type = models.CharField(max_length=32, blank=True, editable=False)
    brand_logo_width = models.PositiveIntegerField(null=True, blank=True, editable=False)
    brand_logo_height = models.PositiveIntegerField(null=True, blank=True, editable=False)
    # The agency's own clock: its report schedules ("the 1st at 08:00") are in this zone.
    time_zone = models.CharField(max_length=64, default="UTC", validators=[validate_time_zone],
                                 help_text="The agency's time zone, e.g. Europe/Paris.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<Reseller {self.slug}>"

    @property
    def rate_limit_text(self) -> str:
        """`auto` or `COUNT/SECONDS`, as the command line and the API write it."""
        if self.rate_limit_auto:
            return "auto"
        return f"{self.rate_limit_count}/{self.rate_limit_seconds}"

    @property
    def has_api_key(self) -> bool:
        return bool(self.api_key_encrypted)

    @property
    def api_key_masked(self) -> str:
        return credentials.mask(self.api_key_last4)

    def set_api_key(self, plaintext: str) -> None:
        """Encrypt and remember a new key; only its fingerprint and last 4 stay readable.

        The key is bound to the origin of the current `provider_base_url`, so assign the URL
        first. An unusable URL binds it to no origin, and then it is never sent anywhere.
        """
        plaintext = plaintext.strip()
        if not plaintext:
            raise ValueError("The API key cannot be empty.")
        self.api_key_encrypted = credentials.encrypt(plaintext)
        self.api_key_fingerprint = credentials.fingerprint(plaintext)
        self.api_key_last4 = plaintext[-4:]
        self.api_key_updated_at = timezone.now()
        self.api_key_origin = url_origin(self.provider_base_url)

    def api_key(self) -> credentials.Secret:
        """The decrypted key, for building a provider client at the moment of use."""
        if not self.api_key_encrypted:
            raise credentials.CredentialError(f"Reseller {self.slug} has no API key.")
        return credentials.Secret(credentials.decrypt(self.api_key_encrypted))


class Role(models.TextChoices):
    OWNER = "owner", "Owner"
    MANAGER = "manager", "Manager"
    VIEWER = "viewer", "Viewer"


ROLE_RANK = {Role.VIEWER: 1, Role.MANAGER: 2, Role.OWNER: 3}


class Membership(TenantOwned):
    """A user's access to a reseller, with a role and optionally one subtree of businesses."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.VIEWER)
    limited_to = models.ForeignKey(
        "accounts.Business", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="When set, the member sees only this business and everything under it.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["reseller", "user"], name="membership_unique_user"),
        ]
        ordering = ["user__email"]

    def __str__(self) -> str:
        return f"{self.user} – {self.get_role_display()}"


class Business(Mirrored):
    """A business of the reseller's tree, mirrored from the provider's child list.

    The provider uses one integer as both a business's id and its business number
    (parameters.md, Identifiers), so it is stored once, as `remote_id`.
    """

    class Type(models.TextChoices):
        BUSINESS = "Business", "Location"
        ENTERPRISE_LOCATION = "Enterprise-Location", "Enterprise (locations)"
        ENTERPRISE_PRODUCT = "Enterprise-Product", "Enterprise (products)"
        RESELLER = "Reseller", "Reseller"

    class Status(models.TextChoices):
        DEMO = "demo", "Demo"
        ACTIVE = "active", "Active"
        INACTIVE = "inactive", "Inactive"

    remote_id = models.BigIntegerField(help_text="The provider's business id and number.")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="children")
    # Materialised path of remote ids ("/1/20/300/") so a subtree is one indexed prefix match.
    tree_path = models.CharField(max_length=500, db_index=True, default="/")
    depth = models.PositiveSmallIntegerField(default=0)
    name = models.CharField(max_length=1000)
    alias = models.CharField(max_length=255, blank=True)
    # Custom hierarchy types exist besides the four named ones, so no choices constraint.
    type = models.CharField(max_length=64, default=Type.BUSINESS)
    status = models.CharField(max_length=16, default=Status.ACTIVE)
    address1 = models.CharField(max_length=255, blank=True)
    address2 = models.CharField(max_length=255, blank=True)
    sub_locality = models.CharField(max_length=255, blank=True)
    city = models.CharField(max_length=255, blank=True)
    state = models.CharField(max_length=255, blank=True)
    zip = models.CharField(max_length=32, blank=True)
    country_code = models.CharField(max_length=2, blank=True)
    country_name = models.CharField(max_length=100, blank=True)
    phone = models.CharField(max_length=32, blank=True)
    child_count = models.PositiveIntegerField(null=True, blank=True)
    created_on = models.DateField(null=True, blank=True)
    created_by = models.CharField(max_length=255, blank=True)
    # Share of the location's listing sites that are synced, from its status report (None
    # without one). Kept here when the report is mirrored so the list sorts on an index.
    synced_percent = models.FloatField(null=True, blank=True, editable=False)
    # Whether its status report asks for action, copied with `synced_percent`: the list's
    # "needs action" filter and its count then read the business indexes alone, not a join.
    needs_action = models.BooleanField(default=False, editable=False)
    # Name, alias, city, state and postal code in capitals, one per line (a word never matches
    # across two), kept by the database: the list's search compares each word with this one
    # column (business_search_idx, or a trigram index on PostgreSQL for a rare word) instead of
    # upper-casing five columns of every business.
    search_text = models.GeneratedField(
        expression=Upper(Concat("name", Value("\n"), "alias", Value("\n"), "city", Value("\n"),
                                "state", Value("\n"), "zip", output_field=models.TextField())),
        output_field=models.TextField(), db_persist=True)

    class Meta:
        verbose_name_plural = "businesses"
        constraints = [
            models.UniqueConstraint(fields=["reseller", "remote_id"],
                                    name="business_unique_remote_id"),
        ]
        indexes = [
            models.Index(fields=["reseller", "name"]),
            # Counts of the list filtered by type, country and status (one in two of 50,000
            # businesses matching is still a read of this narrow index, not of the table), and
            # the dashboard's and tree's groupings. Country before status: a country narrows
            # more, and the API filters on type and country alone.
            models.Index(fields=["reseller", "type", "country_code", "status"],
                         name="business_filter_idx", include=["needs_action", "parent", "id"],
                         condition=Q(removed_at__isnull=True)),
            models.Index(fields=["reseller", "country_code", "city"]),
            # A subtree is a prefix match (LIKE '/1/20/%'); pattern ops let PostgreSQL use the
            # index for it whatever the database's collation.
            # It carries what a subtree's list filters and counts on ("needs action under this
            # brand" reads the index only).
            models.Index(fields=["reseller", "tree_path"], name="business_subtree_idx",
                         opclasses=["int8_ops", "varchar_pattern_ops"],
                         include=["removed_at", "type", "status", "needs_action", "id"]),
            # The current businesses in the list's order, carrying the columns that the list
            # filters on and the dashboard and tree group by: counts, groupings and a page in
            # name order read the index only (PostgreSQL), never the wide rows with their raw
            # payloads, even when the matches cluster far down the alphabet (a brand's
            # locations).
            models.Index(fields=["reseller", "name", "id"], name="business_current_idx",
                         include=["type", "status", "country_code", "city", "tree_path",
                                  "parent", "needs_action"],
                         condition=Q(removed_at__isnull=True)),
            # A search in the list's order: the term is checked against this narrow index's
            # search text (a third of the covering index's size), and its first page and count
            # come from the same pass.
            models.Index(fields=["reseller", "name", "id"], name="business_search_idx",
                         include=["search_text"], condition=Q(removed_at__isnull=True)),
            # The few containers among many locations (the hierarchy tree).
            models.Index(fields=["reseller", "depth", "name"], name="business_container_idx",
                         condition=Q(removed_at__isnull=True) & ~Q(type="Business")),
            # A container's direct children in name order (its detail page, the API).
            models.Index(fields=["reseller", "parent", "name", "id"],
                         name="business_children_idx", condition=Q(removed_at__isnull=True)),
            # The list sorted by synced % (either way, missing values last) has its indexes in
            # migration 0006: SQLite cannot declare NULLS LAST in an index.
        ]
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.remote_id})"

    @property
    def business_number(self) -> int:
        return self.remote_id

    @property
    def is_location(self) -> bool:
        return self.type == self.Type.BUSINESS

    def subtree_q(self, prefix: str = "") -> Q:
        return Q(**{f"{prefix}tree_path__startswith": self.tree_path})

    # Countries that write "City, ST 12345" (the postal code after the city and state); most
    # others write "12345 City".
    POSTAL_CODE_LAST = frozenset({"US", "CA", "AU", "NZ", "GB", "IE"})

    @property
    def address_lines(self) -> list[str]:
        """The postal address as the location's country writes it, a line each."""
        street = ", ".join(part for part in (self.address1, self.address2) if part)
        city_state = ", ".join(part for part in (self.city, self.state) if part)
        if (self.country_code or "").upper() in self.POSTAL_CODE_LAST:
            locality = " ".join(part for part in (city_state, self.zip) if part)
        else:
            locality = " ".join(part for part in (self.zip, city_state) if part)
        country = self.country_name or self.country_code
        return [line for line in (street, locality, country) if line]


class HierarchyMapping(TenantOwned):
    """One level of a location's hierarchy: level name -> level value."""

    business = models.ForeignKey(Business, on_delete=models.CASCADE, related_name="hierarchy")
    level_name = models.CharField(max_length=255)
    level_value = models.CharField(max_length=1000, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["reseller", "business", "level_name"],
                                    name="hierarchy_unique_level"),
        ]
        ordering = ["level_name"]

    def __str__(self) -> str:
        return f"{self.level_name}: {self.level_value}"


class AuditEvent(TenantOwned):
    """Who did what, when. Written by services; never edited."""

    reseller = models.ForeignKey(Reseller, null=True, blank=True, on_delete=models.CASCADE,
                                 related_name="+")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                              on_delete=models.SET_NULL, related_name="+")
    actor_label = models.CharField(max_length=255, blank=True,
                                   help_text="Who acted, kept when the user is deleted.")
    action = models.CharField(max_length=64, db_index=True)
    object_type = models.CharField(max_length=64, blank=True)
    object_id = models.CharField(max_length=64, blank=True)
    summary = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["reseller", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor_label} {self.action}"


class SyncRun(TenantOwned):
    """One sync of a reseller's data from the provider, with its progress as it goes."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        PARTIAL = "partial", "Finished with errors"
        FAILED = "failed", "Failed"

    FINISHED = (Status.SUCCEEDED, Status.PARTIAL, Status.FAILED)
    MAX_ERRORS_KEPT = 20

    resources = models.JSONField(default=list, help_text="What is synced; empty means all.")
    scope = models.ForeignKey(Business, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+", help_text="Only this business's subtree.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED,
                              db_index=True)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True, help_text="The first errors met.")
    counts = models.JSONField(default=dict, blank=True, help_text="Rows mirrored per resource.")
    requests_made = models.PositiveIntegerField(default=0)
    rate_limited = models.PositiveIntegerField(default=0)
    attempt = models.PositiveIntegerField(
        default=0, help_text="Raised each time the run (re)starts; older steps then do nothing.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["reseller", "-created_at"])]

    def __str__(self) -> str:
        return f"Sync {self.pk} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    @property
    def percent(self) -> int:
        if not self.total:
            return 100 if self.is_finished else 0
        return min(100, round(100 * (self.done + self.failed) / self.total))

    @property
    def duration(self):
        if self.started_at is None:
            return None
        return (self.finished_at or timezone.now()) - self.started_at


class ApiToken(TenantOwned):
    """A personal API token of one member for one reseller, stored only as a hash.

    Its role caps the member's (a manager can make a read-only token); the member's current
    role and subtree still apply, so removing a member disables their tokens at once.
    """

    PREFIX = "rpt_"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="api_tokens")
    name = models.CharField(max_length=100)
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.VIEWER)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    key_hint = models.CharField(max_length=16, editable=False,
                                help_text="The token's first characters, to recognise it.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.key_hint}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class IdempotencyRecord(TenantOwned):
    """The response to a POST sent with an Idempotency-Key, replayed when it is sent again."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+")
    key = models.CharField(max_length=255)
    request_fingerprint = models.CharField(max_length=64)
    response_status = models.PositiveSmallIntegerField()
    response_body = models.JSONField(null=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller", "user", "key"],
                                               name="idempotency_unique_key")]


class BrandLogo(TenantOwned):
    """A reseller's logo file (`Reseller.brand_logo_*` describe it), kept out of the reseller's
    row, which every page reads. The bytes are those `accounts.brand_logo` drew again from the
    upload, never the upload itself."""

    data = models.BinaryField()
    content_type = models.CharField(max_length=32)
    hash = models.CharField(max_length=64)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["reseller"],
                                               name="brand_logo_one_per_reseller")]

    def __str__(self) -> str:
        return f"Logo of reseller {self.reseller_id} ({self.content_type})"
