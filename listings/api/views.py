"""The listings API: a location's listing and its submissions, listing status, categories, Q&A,
custom fields, the AI-search configuration and webhook subscriptions.

Views stay thin: reads go through the selectors, writes through the services; bodies are checked
with the pages' rules (the services' own, the webhook form's, the listing editor's on a whole
document: `listing_errors`), so the API refuses what the UI refuses."""

from __future__ import annotations

import django_filters
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import (
    OpenApiExample,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import exceptions, generics, status
from rest_framework import serializers as drf_serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from accounts.api.base import (
    BusinessAPIMixin,
    IdempotentCreateMixin,
    TenantAPIMixin,
    locations_only,
)
from accounts.filtersets import YesNoFilter
from listings import selectors as listing_selectors
from listings.api import serializers as s
from listings.api.serializers import HierarchySerializer, HierarchyWriteSerializer
from listings.editor import selectors
from listings.editor.categories import categories_fetch
from listings.editor.diff import merge
from listings.editor.document import LISTING_SECTIONS
from listings.editor.editor import listing_errors
from listings.editor.services import ListingBusy, listing_changes_prepare, listing_submit
from listings.forms import SubscriptionForm
from listings.models import Category, ListingVersion
from listings.selectors import (
    hierarchy_latest_update,
    hierarchy_level_list,
    hierarchy_requested_levels,
    listing_site_list,
)
from listings.services import (
    ai_search_configuration_refresh,
    custom_field_create,
    hierarchy_update,
    listing_status_refresh_request,
    qna_delete_all,
    subscription_delete,
    subscriptions_create,
)
from outbox.api.serializers import ChangeSerializer
from outbox.api.views import change_location
from portal.api.docs import ERRORS, IDEMPOTENCY_KEY, READ_ERRORS, REMOTE_ID
from portal.api.errors import ApiErrorSerializer, Conflict
from portal.api.serializers import form_errors


def _invalid(fields: dict[str, list[str]]) -> exceptions.ValidationError:
    return exceptions.ValidationError(fields)


# -- listing ---------------------------------------------------------------------------------------

@extend_schema(summary="A location's listing: the current draft and the last accepted version",
               responses={200: s.ListingSerializer, **ERRORS})
class ListingView(BusinessAPIMixin, generics.GenericAPIView):
    business_types = locations_only("Listings")
    serializer_class = s.ListingSerializer

    def get(self, request, *args, **kwargs):
        business = self.get_business()
        latest = selectors.listing_version_latest(tenant=self.tenant, business=business)
        accepted = selectors.listing_version_last_accepted(tenant=self.tenant, business=business)
        data = {
            "business_number": business.remote_id,
            "fixed": accepted is not None,
            "draft": {"number": latest.number if latest else None,
                      "state": latest.state if latest else None,
                      "document": (latest.document if latest else
                                   selectors.listing_document_from_business(business))},
            "accepted": ({"number": accepted.number, "document": accepted.document,
                          "accepted_at": accepted.accepted_at} if accepted else None),
        }
        return Response(s.ListingSerializer(data).data)


SUBMISSION_EXAMPLE = OpenApiExample(
    "A change of phone and hours",
    value={"businessInfo": {"name": "Harbour Lights Cafe", "phone": "(206) 555-0142"},
           "additionalInfo": {"hoursOfOperations": [
               {"day": 0, "isOpen": 1,
                "workingHours": [{"startHour": 28800, "endHour": 57600}]}]}},
    request_only=True)
SUBMITTED_EXAMPLE = OpenApiExample(
    "Queued for the provider", response_only=True, status_codes=["202"],
    value={"number": 3, "state": "pending", "summary": "Business information › Phone",
           "payload": {"businessInfo": {"name": "Harbour Lights Cafe",
                                        "phone": "(206) 555-0142"}},
           "outbox_entry_id": 118, "provider_code": None, "provider_message": "",
           "field": None, "created_at": "2026-01-01T12:00:00Z", "accepted_at": None})


class ListingSubmissionList(IdempotentCreateMixin, BusinessAPIMixin, generics.ListAPIView):
    """The submitted versions of a location's listing, newest first; POST submits a change."""
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"post": {
        "non_field_errors": "The change must change something against the last accepted "
                            "version.",
        **dict.fromkeys(LISTING_SECTIONS, "The listing editor's rules (formats, fields that go "
                                          "together, dates)."),
    }}

    business_types = locations_only("Listings")
    api_description = __doc__  # written for API users (portal.api.schema)

    serializer_class = s.ListingSubmissionSerializer

    def get_tenant_queryset(self):
        return selectors.listing_version_list(tenant=self.tenant, business=self.get_business())

    @extend_schema(
        summary="Submit a change of the listing",
        description="The body is a create-listing body holding what changes. It is checked with "
                    "the listing editor's rules (errors name dotted paths such as "
                    "`profileListing.foodDelivery`), stored as a new version and queued for the "
                    "provider: poll the returned submission until its state is accepted, "
                    "rejected or failed. 409 while the previous change is still pending.",
        request=s.ListingPayloadSerializer, parameters=[IDEMPOTENCY_KEY],
        examples=[SUBMISSION_EXAMPLE, SUBMITTED_EXAMPLE],
        responses={202: s.ListingSubmissionSerializer, 409: ApiErrorSerializer,
                   **ERRORS})
    def post(self, request, *args, **kwargs):
        return self.idempotent(request, lambda: self._submit(request))

    def _submit(self, request):
        business = self.get_business()
        if not business.is_location:
            raise _invalid({"non_field_errors": ["Only a location has a listing."]})
        body = s.ListingPayloadSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        payload = {key: value for key, value in request.data.items()}
        accepted = selectors.listing_version_last_accepted(tenant=self.tenant, business=business)
        accepted_document = accepted.document if accepted else None
        document = merge(accepted_document or {}, payload)
        errors = listing_errors(document, accepted=accepted_document)
        if errors:
            raise _invalid(errors)
        # Nothing changed is a ValidationError: the API's 400 on non_field_errors.
        prepared = listing_changes_prepare(tenant=self.tenant, business=business,
                                           document=document)
        try:
            # The body is sent as given, not the editor's: it holds what the client changes.
            version = listing_submit(tenant=self.tenant, actor=request.user, business=business,
                                     payload=payload, summary=prepared.summary)
        except ListingBusy as exc:
            raise Conflict(str(exc), code="busy") from exc
        return Response(s.ListingSubmissionSerializer(version).data,
                        status=status.HTTP_202_ACCEPTED)


@extend_schema(summary="One submission of the listing (poll it)",
               responses={200: s.ListingSubmissionSerializer, **ERRORS})
class ListingSubmissionDetail(BusinessAPIMixin, generics.RetrieveAPIView):
    business_types = locations_only("Listings")
    serializer_class = s.ListingSubmissionSerializer

    def get_object(self):
        try:
            return selectors.listing_version_get(tenant=self.tenant, business=self.get_business(),
                                                 number=self.kwargs["number"])
        except ListingVersion.DoesNotExist:
            raise Http404("No such submission.") from None


@extend_schema(summary="A location's listing status report and its sites",
               responses={200: s.ListingStatusSerializer, **ERRORS})
class ListingStatusView(BusinessAPIMixin, generics.GenericAPIView):
    business_types = locations_only("Listing status reports")
    serializer_class = s.ListingStatusSerializer

    def get(self, request, *args, **kwargs):
        business = self.get_business()
        report = listing_selectors.listing_status_report_get(tenant=self.tenant,
                                                             business=business)
        if report is None:
            raise Http404("No status report was mirrored for this business yet.")
        sites = listing_site_list(tenant=self.tenant, business=business)
        return Response(s.ListingStatusSerializer({"report": report, "sites": sites}).data)


@extend_schema(
    summary="Fetch a location's listing status again",
    description="Queues a refresh of the status report from the provider (as the portal's "
                "Refresh button does); read `listing-status/` again in a moment.",
    request=None,
    responses={202: inline_serializer("ListingStatusRefreshQueued", {
        "business_number": drf_serializers.IntegerField(),
        "queued": drf_serializers.BooleanField()})},
)
class ListingStatusRefreshView(BusinessAPIMixin, generics.GenericAPIView):
    business_types = locations_only("Listing status reports")
    serializer_class = s.ListingStatusSerializer

    def post(self, request, *args, **kwargs):
        business = self.get_business()
        listing_status_refresh_request(tenant=self.tenant, actor=request.user, business=business)
        return Response({"business_number": business.remote_id, "queued": True},
                        status=status.HTTP_202_ACCEPTED)


# -- categories ------------------------------------------------------------------------------------

class CategoryFilterSet(django_filters.FilterSet):
    source = django_filters.ChoiceFilter(choices=[(c, c) for c in s.CATEGORY_SOURCE_CHOICES])
    country = django_filters.CharFilter(field_name="country_code", lookup_expr="iexact")
    q = django_filters.CharFilter(field_name="name", lookup_expr="icontains",
                                  label="Part of the name")
    primary = YesNoFilter()

    class Meta:
        model = Category
        fields = ["source", "country", "q", "primary"]


@extend_schema(summary="Mirrored categories of the provider's lists")
class CategoryList(TenantAPIMixin, generics.ListAPIView):
    serializer_class = s.CategorySerializer
    filter_backends = [DjangoFilterBackend]
    filterset_class = CategoryFilterSet

    def get_tenant_queryset(self):
        return Category.objects.filter(reseller=self.tenant, removed_at__isnull=True).order_by(
            "source", "country_code", "name", "pk")


@extend_schema(summary="Fetch a country's category lists from the provider into the mirror",
               request=s.CategoryFetchRequestSerializer,
               responses={200: s.CategoryFetchSerializer, **ERRORS})
class CategoryFetchView(BusinessAPIMixin, generics.GenericAPIView):
    serializer_class = s.CategoryFetchSerializer

    def post(self, request, *args, **kwargs):
        business = self.get_business()
        body = s.CategoryFetchRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        result = categories_fetch(tenant=self.tenant, business=business,
                                  country_code=body.validated_data["country"])
        return Response(s.CategoryFetchSerializer(
            {"counts": result.counts, "errors": result.errors}).data)


# -- Q&A -------------------------------------------------------------------------------------------

class QuestionList(BusinessAPIMixin, generics.ListAPIView):
    """A location's questions with their answers; DELETE queues the deletion of all of them."""
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"delete": {
        "business_number": "The business must have questions as of the last sync.",
    }}

    api_description = __doc__  # written for API users (portal.api.schema)

    serializer_class = s.QuestionSerializer

    def get_tenant_queryset(self):
        return listing_selectors.question_list(tenant=self.tenant, business=self.get_business())

    @extend_schema(summary="Questions of a location, with answers")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(summary="Delete every question and answer of a location",
                   description="Queued for the provider: answers 202 with the change. A "
                               "deletion already on its way is returned instead of a second. "
                               "A business with no questions (nor any location under it) as "
                               "of the last sync is refused: 400 on `business_number`.",
                   request=None, responses={202: ChangeSerializer, **ERRORS})
    def delete(self, request, *args, **kwargs):
        entry = qna_delete_all(tenant=self.tenant, actor=request.user,
                               business=self.get_business())
        return Response(ChangeSerializer(entry).data, status=status.HTTP_202_ACCEPTED)


# -- custom fields ---------------------------------------------------------------------------------

class CustomFieldList(IdempotentCreateMixin, TenantAPIMixin, generics.ListAPIView):
    """The account's custom fields; POST queues a new one."""
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"post": {
        "field_name": "Not the name of another custom field of the account.",
        "default_value": "Fits the type.",
        "drop_down_options": "Only, and required, for drop-downs.",
    }}

    api_description = __doc__  # written for API users (portal.api.schema)

    serializer_class = s.CustomFieldSerializer

    def get_tenant_queryset(self):
        return listing_selectors.custom_field_list(tenant=self.tenant)

    @extend_schema(summary="Custom fields of the account")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Create a custom field",
        description="Checked like the portal's form, then queued for the provider: 202 with "
                    "the change; the field is listed once the provider accepted it.",
        request=s.CustomFieldCreateSerializer, parameters=[IDEMPOTENCY_KEY],
        examples=[OpenApiExample("A drop-down", request_only=True, value={
            "field_name": "Parking", "type": "DROPDOWN_SINGLE",
            "drop_down_options": ["Street", "Garage"], "default_value": "Street"})],
        responses={202: ChangeSerializer, **ERRORS})
    def post(self, request, *args, **kwargs):
        return self.idempotent(request, lambda: self._create(request))

    def _create(self, request):
        body = s.CustomFieldCreateSerializer(data=request.data, context={"tenant": self.tenant})
        body.is_valid(raise_exception=True)
        entry = custom_field_create(tenant=self.tenant, actor=request.user,
                                    **body.validated_data)
        return Response(ChangeSerializer(entry).data, status=status.HTTP_202_ACCEPTED)


# -- AI search -------------------------------------------------------------------------------------

@extend_schema(summary="The account's AI-search configuration (as last mirrored)",
               responses={200: s.AiSearchConfigurationSerializer, **ERRORS})
class AiSearchDetail(TenantAPIMixin, generics.GenericAPIView):
    serializer_class = s.AiSearchConfigurationSerializer

    def get(self, request, *args, **kwargs):
        configuration = listing_selectors.ai_search_configuration_get(tenant=self.tenant)
        if configuration is None:
            raise Http404("No AI-search configuration was fetched yet: refresh it.")
        return Response(s.AiSearchConfigurationSerializer(configuration).data)


@extend_schema(summary="Fetch the AI-search configuration from the provider now",
               request=None,
               responses={200: s.AiSearchConfigurationSerializer, 422: ApiErrorSerializer,
                          **ERRORS})
class AiSearchRefresh(TenantAPIMixin, generics.GenericAPIView):
    serializer_class = s.AiSearchConfigurationSerializer

    def post(self, request, *args, **kwargs):
        # The provider's failures answer 422 or 503 through the API's error handler.
        configuration = ai_search_configuration_refresh(tenant=self.tenant, actor=request.user)
        return Response(s.AiSearchConfigurationSerializer(configuration).data)


# -- webhooks --------------------------------------------------------------------------------------

class SubscriptionList(IdempotentCreateMixin, TenantAPIMixin, generics.ListAPIView):
    """The account's webhook subscriptions; POST queues a new one."""
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"post": {
        "webhook_url": "An https address.",
        "event_names": "Events the URL does not receive yet.",
        "event_name": "An event the URL does not receive yet.",
        "emails": "Email addresses.",
        "auth_username": "Given together with `auth_password`.",
        "auth_password": "Given together with `auth_username`.",
        "non_field_errors": "At least one event.",
    }}

    api_description = __doc__  # written for API users (portal.api.schema)

    serializer_class = s.SubscriptionSerializer

    def get_tenant_queryset(self):
        return listing_selectors.subscription_list(tenant=self.tenant)

    @extend_schema(summary="Webhook subscriptions of the account")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Subscribe a webhook to one or several events",
        description="Checked like the portal's form (https URL, known events, email "
                    "addresses, user name and password together; an event the URL already "
                    "receives, or is about to, is refused on `event_names`), then queued. The "
                    "provider takes one event per subscription, so `event_names` queues one "
                    "for each and answers 202 with `{\"changes\": [...]}`; a body with one "
                    "`event_name` answers 202 with that one change, as it always did. The "
                    "password is sent to the provider once and never returned.",
        request=s.SubscriptionCreateSerializer, parameters=[IDEMPOTENCY_KEY],
        examples=[
            OpenApiExample("A webhook for listings and surveys", request_only=True, value={
                "webhook_url": "https://hooks.example.com/portal",
                "event_names": ["LISTING_UPDATED", "SURVEY_COMPLETED"],
                "emails": ["ops@example.com"]}),
            OpenApiExample("One event", request_only=True, value={
                "webhook_url": "https://hooks.example.com/portal",
                "event_name": "LISTING_UPDATED"})],
        responses={202: PolymorphicProxySerializer(
            component_name="SubscriptionCreated",
            serializers=[s.SubscriptionCreateResultSerializer, ChangeSerializer],
            resource_type_field_name=None), **ERRORS})
    def post(self, request, *args, **kwargs):
        return self.idempotent(request, lambda: self._create(request))

    def _create(self, request):
        body = s.SubscriptionCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = dict(body.validated_data)
        one = data.pop("event_name", None)
        data["event_names"] = [one] if one is not None else data.get("event_names", [])
        data["emails"] = "\n".join(data["emails"])
        form = SubscriptionForm(data, tenant=self.tenant)
        if not form.is_valid():
            raise _invalid(self._as_sent(form_errors(form), one))
        try:
            entries = subscriptions_create(tenant=self.tenant, actor=request.user,
                                           **form.cleaned_data)
        except DjangoValidationError as exc:  # a twin request queued the same events meanwhile
            raise _invalid(self._as_sent(exc.message_dict, one)) from exc
        if one is not None:
            return Response(ChangeSerializer(entries[0]).data, status=status.HTTP_202_ACCEPTED)
        return Response(s.SubscriptionCreateResultSerializer({"changes": entries}).data,
                        status=status.HTTP_202_ACCEPTED)

    @staticmethod
    def _as_sent(errors: dict, one: str | None) -> dict:
        """Errors about the events named after the field the client used."""
        if one is not None and "event_names" in errors:
            errors = {("event_name" if name == "event_names" else name): value
                      for name, value in errors.items()}
        return errors


@extend_schema(summary="Unsubscribe a webhook",
               description="Queued for the provider: 202 with the change; the subscription "
                           "is listed until the provider confirms.",
               request=None, responses={202: ChangeSerializer, **ERRORS})
class SubscriptionDetail(TenantAPIMixin, generics.GenericAPIView):
    serializer_class = ChangeSerializer

    def delete(self, request, *args, **kwargs):
        subscription = listing_selectors.subscription_get(tenant=self.tenant,
                                                          remote_id=self.kwargs["remote_id"])
        if subscription is None:
            raise Http404("No such subscription.")
        entry = subscription_delete(tenant=self.tenant, actor=request.user,
                                    subscription=subscription)
        return Response(ChangeSerializer(entry).data, status=status.HTTP_202_ACCEPTED)


# -- hierarchy mapping ---------------------------------------------------------------------------


@extend_schema_view(
    get=extend_schema(
        summary="A location's hierarchy mapping",
        description="The levels the provider last accepted, and the latest change sent for "
                    "them with its state.",
        parameters=[REMOTE_ID], responses={200: HierarchySerializer, **READ_ERRORS}),
    put=extend_schema(
        summary="Replace a location's hierarchy mapping",
        description="The provider replaces the whole mapping with exactly these levels, so "
                    "send every level. Answers 202 with the queued change; poll "
                    "`changes/{id}/` until it is accepted, rejected or failed.",
        parameters=[REMOTE_ID, IDEMPOTENCY_KEY], request=HierarchyWriteSerializer,
        responses={202: ChangeSerializer, **ERRORS},
        examples=[OpenApiExample("Two levels", request_only=True,
                                 value={"levels": {"Region": "West", "District": "Bay Area"}}),
                  OpenApiExample("Queued", response_only=True, status_codes=["202"],
                                 value={"id": 42, "kind": "hierarchy_update",
                                        "state": "pending", "finished": False,
                                        "summary": "Hierarchy: Region=West",
                                        "business_number": 1001, "provider_code": None,
                                        "provider_message": "", "attempts": 0,
                                        "created_at": "2026-01-01T12:00:00Z",
                                        "finished_at": None})]),
)
class BusinessHierarchy(BusinessAPIMixin, IdempotentCreateMixin, generics.GenericAPIView):
    # Input that fits the schema and may still be refused: the reference lists it.
    api_checked_beyond_schema = {"put": {
        "levels": "Each level named, each name once.",
    }}

    business_types = locations_only("Hierarchy levels")
    serializer_class = HierarchyWriteSerializer
    pagination_class = None

    def get_object(self):
        # DRF's own callers (the OPTIONS metadata) look the object up through this hook; the
        # generic one needs a queryset, which this view has none of.
        business = self.get_business()
        self.check_object_permissions(self.request, business)
        return business

    def get(self, request, *args, **kwargs):
        business = self.get_object()
        levels = hierarchy_level_list(tenant=self.tenant, business=business)
        latest = hierarchy_latest_update(tenant=self.tenant, business=business)
        if latest is not None:
            latest.business = business
        data = {
            "business_number": business.remote_id,
            "levels": {row.level_name: row.level_value for row in levels},
            "latest_change": latest,
            "requested_levels": hierarchy_requested_levels(latest)
            if latest is not None else None,
        }
        return Response(HierarchySerializer(data).data)

    def put(self, request, *args, **kwargs):
        business = self.get_object()
        return self.idempotent(request, lambda: self._replace(request, business))

    def _replace(self, request, business):
        serializer = HierarchyWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        if not business.is_location or business.removed_at is not None:
            raise ValidationError({"non_field_errors": [
                "Hierarchy levels belong to current locations only."]})
        try:
            entry = hierarchy_update(tenant=self.tenant, actor=request.user, business=business,
                                     levels=serializer.validated_data["levels"])
        except ValueError as exc:
            raise ValidationError({"levels": [str(exc)]}) from exc
        entry.business = business
        return Response(ChangeSerializer(entry).data, status=status.HTTP_202_ACCEPTED,
                        headers={"Location": change_location(self, entry)})
