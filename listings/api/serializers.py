"""Serializers of the listings API. Component names carry a `Listings` prefix where another
app's API has a resource of the same idea (changes, errors), so the schema has no collisions."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiSerializerExtension
from rest_framework import serializers

from listings.editor.document import listing_document_schema, listing_unknown_fields
from listings.editor.errors import error_field
from listings.editor.schema import CATEGORY_SOURCES, COUNTRIES
from listings.forms import EVENT_NAMES, LEVEL_NAME_MAX, LEVEL_VALUE_MAX, split_lines
from listings.models import (
    AiSearchConfiguration,
    Answer,
    Category,
    CustomField,
    ListingSite,
    ListingStatusReport,
    ListingVersion,
    Question,
    Subscription,
)
from listings.services import CUSTOM_FIELD_TEXT_MAX_LENGTH, custom_field_validate
from outbox.api.serializers import ChangeSerializer
from outbox.models import OutboxEntry
from portal.api.serializers import StrictSerializer

# -- listing -------------------------------------------------------------------------------------

class ListingPayloadSerializer(serializers.Serializer):
    """A create-listing body (spec/interface.md): only the sections that change;
    `businessInfo.name` is always required. Checked with the listing editor's rules."""

    businessInfo = serializers.DictField(  # noqa: N815 - the provider's names
        help_text="name (required), phone, location {address1, city, state, zip, countryCode}…")
    additionalInfo = serializers.DictField(required=False)  # noqa: N815
    profileListing = serializers.DictField(required=False)  # noqa: N815
    mapsListing = serializers.DictField(required=False)  # noqa: N815
    engineListing = serializers.DictField(required=False)  # noqa: N815
    socialListing = serializers.DictField(required=False)  # noqa: N815
    internalListing = serializers.DictField(required=False)  # noqa: N815
    thirdPartyListing = serializers.DictField(required=False)  # noqa: N815
    media = serializers.DictField(required=False)
    optOut = serializers.DictField(required=False)  # noqa: N815
    socialProfileURLs = serializers.DictField(required=False)  # noqa: N815
    healthcare = serializers.DictField(required=False)
    covidInfo = serializers.DictField(required=False)  # noqa: N815

    def to_internal_value(self, data):
        # A field the provider's listing does not have, at any depth, by its dotted path: the
        # same check as the service's that stores the version (listing_submit).
        unknown = listing_unknown_fields(data) if isinstance(data, dict) else {}
        if unknown:
            raise serializers.ValidationError(unknown)
        return super().to_internal_value(data)

    def validate_businessInfo(self, value):  # noqa: N802
        if not isinstance(value.get("name"), str) or not value["name"].strip():
            raise serializers.ValidationError({"name": ["This field is required."]})
        return value


class ListingPayloadSchema(OpenApiSerializerExtension):
    """The body's schema in the API's reference is the listing document's own, every field at
    every depth (`listings.editor.document`), rather than a free object per section."""

    target_class = ListingPayloadSerializer

    def map_serializer(self, auto_schema, direction):
        schema = listing_document_schema()
        schema["description"] = (
            "A create-listing body holding only the sections and fields that change; "
            "`businessInfo.name` is always required. A field the provider's listing does not "
            "have, at any depth, is refused (400 naming its dotted path).")
        return schema


class ListingSubmissionSerializer(serializers.ModelSerializer):
    """One submitted version of a listing and what became of it."""

    api_description = __doc__  # written for API users (portal.api.schema)

    state = serializers.ChoiceField(choices=OutboxEntry.State.choices, read_only=True)
    outbox_entry_id = serializers.IntegerField(read_only=True, allow_null=True)
    provider_code = serializers.SerializerMethodField()
    provider_message = serializers.SerializerMethodField()
    field = serializers.SerializerMethodField(
        help_text="The dotted path of the field a rejection is about, if any.")

    class Meta:
        model = ListingVersion
        fields = ["number", "state", "summary", "payload", "outbox_entry_id", "provider_code",
                  "provider_message", "field", "created_at", "accepted_at"]
        read_only_fields = fields

    def get_provider_code(self, version) -> int | None:
        return version.outbox_entry.provider_code if version.outbox_entry else None

    def get_provider_message(self, version) -> str:
        return version.outbox_entry.provider_message if version.outbox_entry else ""

    def get_field(self, version) -> str | None:
        entry = version.outbox_entry
        if entry is None or version.state != OutboxEntry.State.REJECTED:
            return None
        return error_field(entry.provider_code, entry.provider_message, version.payload)


class ListingDraftSerializer(serializers.Serializer):
    number = serializers.IntegerField(allow_null=True,
                                      help_text="Null when nothing was submitted yet.")
    state = serializers.CharField(allow_null=True)
    document = serializers.DictField()


class ListingAcceptedSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    document = serializers.DictField()
    accepted_at = serializers.DateTimeField()


class ListingSerializer(serializers.Serializer):
    business_number = serializers.IntegerField()
    fixed = serializers.BooleanField(help_text="Whether the provider accepted a version yet.")
    draft = ListingDraftSerializer(help_text="The latest version's document (or, before any, "
                                             "what the portal knows of the business).")
    accepted = ListingAcceptedSerializer(allow_null=True)


# -- status ----------------------------------------------------------------------------------------

class ListingSiteSerializer(serializers.ModelSerializer):
    # The provider leaves a site's link empty until it is listed there, so not a strict URI.
    url = serializers.CharField(read_only=True, allow_blank=True,
                                help_text="The listing's address on the site; empty if none.")

    class Meta:
        model = ListingSite
        fields = ["site_id", "site_name", "status", "errors", "url", "last_seen_at"]
        read_only_fields = fields


class ListingStatusReportSerializer(serializers.ModelSerializer):
    business_number = serializers.IntegerField(source="remote_id", read_only=True)

    class Meta:
        model = ListingStatusReport
        fields = ["business_number", "business_name", "activation_status", "location_status",
                  "last_updated_text", "publish_listings", "errors", "total_sites",
                  "synced_count", "submitted_count", "need_updates_count", "opted_out_count",
                  "not_connected_count", "needs_action", "last_seen_at"]
        read_only_fields = fields


class ListingStatusSerializer(serializers.Serializer):
    report = ListingStatusReportSerializer()
    sites = ListingSiteSerializer(many=True)


# -- categories ------------------------------------------------------------------------------------

class CategorySerializer(serializers.ModelSerializer):
    id = serializers.CharField(source="remote_id", read_only=True,
                               help_text="The category id (a dotted path for the maps source).")

    class Meta:
        model = Category
        fields = ["id", "name", "source", "country_code", "primary", "last_seen_at"]
        read_only_fields = fields


class CategoryFetchRequestSerializer(StrictSerializer):
    country = serializers.ChoiceField(choices=sorted(COUNTRIES),
                                      help_text="The country whose lists are fetched.")


class CategoryFetchSerializer(serializers.Serializer):
    counts = serializers.DictField(child=serializers.IntegerField(),
                                   help_text="Source → categories mirrored.")
    errors = serializers.DictField(child=serializers.CharField(),
                                   help_text="Source → why its list could not be fetched.")


CATEGORY_SOURCE_CHOICES = sorted(CATEGORY_SOURCES)


# -- Q&A -------------------------------------------------------------------------------------------

class AnswerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Answer
        fields = ["remote_id", "answer", "answered_by_owner", "updated_by", "updated_on", "time",
                  "user_category"]
        read_only_fields = fields


class QuestionSerializer(serializers.ModelSerializer):
    answers = AnswerSerializer(many=True, read_only=True, source="live_answers")

    class Meta:
        model = Question
        fields = ["remote_id", "question", "asked_by_owner", "answered_by_owner", "updated_by",
                  "updated_on", "time", "user_category", "answer_count", "answers"]
        read_only_fields = fields


# -- custom fields ---------------------------------------------------------------------------------

class CustomFieldSerializer(serializers.ModelSerializer):
    default_value = serializers.SerializerMethodField(
        help_text="Fits the type; for a date field, the day as YYYY-MM-DD.")

    class Meta:
        model = CustomField
        fields = ["remote_id", "field_name", "type", "default_value", "drop_down_options",
                  "field_description", "filterable", "last_seen_at"]
        read_only_fields = fields

    def get_default_value(self, field) -> str:
        # The API writes days as ISO 8601 everywhere; the provider keeps MM/DD/YYYY.
        day = field.default_date
        return day.isoformat() if day is not None else field.default_value


class CustomFieldCreateSerializer(StrictSerializer):
    """The shape of the body; the rules (name unique, options only for drop-downs, default fits
    the type) are the service's (`listings.services.custom_field_validate`, which the page's form
    runs too), checked for the tenant in the context (`tenant`). The validated data are the
    arguments of `custom_field_create`."""

    field_name = serializers.CharField()
    type = serializers.ChoiceField(choices=CustomField.Type.choices)
    drop_down_options = serializers.ListField(child=serializers.CharField(), required=False,
                                              default=list,
                                              help_text="Only, and required, for drop-downs.")
    default_value = serializers.CharField(
        required=False, allow_blank=True, default="",
        help_text="Must fit the type: a number, an http(s) URL, one of the options (several, "
                  "comma-separated, for DROPDOWN_MULTI), or for a DATE field a day as "
                  "YYYY-MM-DD (MM/DD/YYYY is read too).")
    field_description = serializers.CharField(required=False, allow_blank=True, default="",
                                              max_length=CUSTOM_FIELD_TEXT_MAX_LENGTH)
    filterable = serializers.BooleanField(required=False, default=False)

    def validate(self, attrs):
        # An option holding line breaks is several options, as on the page (one per line).
        options = split_lines("\n".join(attrs["drop_down_options"]))
        return custom_field_validate(tenant=self.context["tenant"],
                                     **{**attrs, "drop_down_options": options})


# -- AI search -------------------------------------------------------------------------------------

class AiSearchConfigurationSerializer(serializers.ModelSerializer):
    account_number = serializers.IntegerField(source="remote_id", read_only=True)

    class Meta:
        model = AiSearchConfiguration
        fields = ["account_number", "frequency", "quota", "billing_type", "themes",
                  "last_seen_at"]
        read_only_fields = fields


# -- webhooks --------------------------------------------------------------------------------------

class SubscriptionSerializer(serializers.ModelSerializer):
    """A webhook subscription; its basic-auth password is never returned."""

    api_description = __doc__  # written for API users (portal.api.schema)

    event_label = serializers.CharField(read_only=True,
                                        help_text="The event in words, as the portal shows it.")

    class Meta:
        model = Subscription
        fields = ["remote_id", "event_name", "event_label", "webhook_url", "emails",
                  "last_seen_at"]
        read_only_fields = fields


class SubscriptionCreateSerializer(StrictSerializer):
    """The shape of the body; the rules are the portal form's
    (`listings.forms.SubscriptionForm`). The events come as `event_names` (one or several) or,
    as before, one `event_name`; never both."""

    webhook_url = serializers.CharField(help_text="https only.")
    event_names = serializers.ListField(
        child=serializers.ChoiceField(choices=EVENT_NAMES), required=False, allow_empty=False,
        help_text="The events to deliver to the URL; one subscription is made for each.")
    event_name = serializers.ChoiceField(
        choices=EVENT_NAMES, required=False,
        help_text="One event (instead of `event_names`); the answer is then that one change.")
    emails = serializers.ListField(child=serializers.CharField(), required=False, default=list)
    auth_username = serializers.CharField(required=False, allow_blank=True, default="")
    auth_password = serializers.CharField(required=False, allow_blank=True, default="",
                                          write_only=True,
                                          style={"input_type": "password"})

    def validate(self, attrs):
        # No event at all is the form's error, reported with the body's other mistakes.
        if "event_names" in attrs and "event_name" in attrs:
            raise serializers.ValidationError({"event_name": [
                "Give the events in `event_names` only, not also in `event_name`."]})
        return attrs


class SubscriptionCreateResultSerializer(serializers.Serializer):
    changes = ChangeSerializer(many=True, help_text="One queued subscription per event, in the "
                                                    "order of `event_names`.")


# -- hierarchy mapping ---------------------------------------------------------------------------


class HierarchyWriteSerializer(StrictSerializer):
    """The whole mapping: the provider replaces what it holds with exactly these levels."""

    api_description = __doc__  # written for API users (portal.api.schema)

    levels = serializers.DictField(
        child=serializers.CharField(max_length=LEVEL_VALUE_MAX, allow_blank=False,
                                    trim_whitespace=True),
        allow_empty=False,
        help_text="Level name → value; every value non-empty, each name at most once. The "
                  "levels keep the order given here: sent to the provider and read back in it.")

    def validate_levels(self, levels):
        errors, seen, clean = {}, set(), {}
        for name, value in levels.items():
            stripped = str(name).strip()
            if not stripped:
                errors[name or "(empty)"] = ["A level needs a name."]
            elif len(stripped) > LEVEL_NAME_MAX:
                errors[name] = [f"A level name has at most {LEVEL_NAME_MAX} characters."]
            elif stripped.casefold() in seen:
                errors[name] = [f"“{stripped}” is given twice; each level appears once."]
            seen.add(stripped.casefold())
            clean[stripped] = value
        if errors:
            raise serializers.ValidationError(errors)
        return clean


class HierarchySerializer(serializers.Serializer):
    business_number = serializers.IntegerField()
    levels = serializers.DictField(child=serializers.CharField(),
                                   help_text="The levels the provider last accepted, in the "
                                             "order they were given.")
    latest_change = ChangeSerializer(allow_null=True,
                                     help_text="The latest change sent (or being sent).")
    requested_levels = serializers.DictField(
        child=serializers.CharField(), allow_null=True,
        help_text="What the latest change asks for (until it is accepted, it differs from "
                  "`levels`).")


# -- sync runs -----------------------------------------------------------------------------------
