"""Account-level operations: child businesses (15), custom fields (6), hierarchy (9),
AI-search configuration (14)."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone

from sandbox.catalog import (
    COUNTRY_NAMES,
    CUSTOM_FIELD_TYPES,
    DROPDOWN_TYPES,
    RESERVED_CUSTOM_FIELD_NAMES,
)
from sandbox.endpoint import empty_ok, provider_endpoint
from sandbox.errors import ApiError, bad_input
from sandbox.formats import epoch_millis, month_day_year
from sandbox.inputs import (
    body_list,
    body_string,
    header_number,
    json_body,
    parse_number,
    query_number,
    string_items,
)
from sandbox.models import (
    AiSearchConfig,
    Business,
    BusinessAncestor,
    BusinessType,
    CustomField,
    HierarchyMapping,
    PartnerAccount,
)
from sandbox.tree import find_business, find_location

CHILD_BEARING_TYPES = (
    BusinessType.RESELLER,
    BusinessType.ENTERPRISE_LOCATION,
    BusinessType.ENTERPRISE_PRODUCT,
)
DEFAULT_CUSTOM_FIELD_LIMIT = 50
MAX_FIELD_NAME_LENGTH = 200


# -------------------------------------------------------------------- child businesses
def child_entry(business: Business, child_count: int) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": business.number, "name": business.name, "alias": business.alias}
    if business.is_location:
        entry["address"] = {
            "address1": business.address1,
            "address2": business.address2,
            "subLocality": business.sub_locality,
            "city": business.city,
            "state": business.state,
            "zip": business.zip,
            "countryCode": business.country_code,
            "countryName": COUNTRY_NAMES.get(business.country_code, business.country_code),
        }
        entry["phone"] = business.phone
    entry.update(
        {
            "type": business.type,
            "status": business.status,
            "createdOn": month_day_year(business.created_on),
            "createdBy": business.created_by,
        }
    )
    if business.type in CHILD_BEARING_TYPES:
        entry["childCount"] = child_count
    return entry


@provider_endpoint("GET")
def child_businesses(request: HttpRequest, partner: PartnerAccount) -> HttpResponse:
    """Direct children of a reseller, sub-reseller or enterprise (a location has none)."""
    parent = find_business(partner, query_number(request, "pid"))
    children = (
        Business.objects.filter(parent=parent)
        .annotate(child_count=Count("children"))
        .order_by("number")
    )
    return JsonResponse([child_entry(child, child.child_count) for child in children], safe=False)


# ------------------------------------------------------------------------ custom fields
def field_name_key(name: str) -> str:
    return name.strip().casefold()


def _filterable(value: Any) -> bool:
    # The provider's sample sends the string form of a boolean; a JSON boolean is taken too.
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise bad_input('filterable must be "true" or "false"')


# The provider's custom-field replies (all HTTP 400), word for word.
NO_REQUEST = (5023, "Custom field request dto cannot be null.")
UNKNOWN_TYPE = (5031, "Method not implemented for unknown custom field type.")
DUPLICATE_NAME = (5022, "Another custom field with same name already present.")
RESERVED_NAME = (5039, "Custom field name cannot be a reserved keyword.")
TOO_MANY_FIELDS = (5040, "Max limit reached for custom fields.")


@provider_endpoint("POST")
def create_custom_field(request: HttpRequest, partner: PartnerAccount) -> HttpResponse:
    account_number = header_number(request, "x-business-number")
    # No body, or a JSON null, is the provider's "request dto cannot be null".
    body = json_body(request, required=False)
    if body is None:
        raise ApiError(400, *NO_REQUEST)
    if not isinstance(body, dict):
        raise bad_input("Request body must be a JSON object")
    name = body_string(body, "fieldName", required=True).strip()
    if len(name) > MAX_FIELD_NAME_LENGTH:
        raise bad_input(f"fieldName must be at most {MAX_FIELD_NAME_LENGTH} characters")
    field_type = body_string(body, "type", required=True).strip()
    if field_type not in CUSTOM_FIELD_TYPES:
        raise ApiError(400, *UNKNOWN_TYPE)
    default_value = body_string(body, "defaultValue") or ""
    description = body_string(body, "fieldDescription") or ""
    options = string_items(body_list(body, "dropDownOptions"), "dropDownOptions")
    if options and field_type not in DROPDOWN_TYPES:
        raise bad_input("dropDownOptions is only allowed for DROPDOWN_SINGLE and DROPDOWN_MULTI")
    if field_type in DROPDOWN_TYPES and not options:
        raise bad_input(f"dropDownOptions is required for {field_type}")
    filterable = _filterable(body.get("filterable"))

    owner = find_business(partner, account_number)
    if re.sub(r"[\s_-]", "", name).casefold() in RESERVED_CUSTOM_FIELD_NAMES:
        raise ApiError(400, *RESERVED_NAME)
    limit = getattr(settings, "SANDBOX_CUSTOM_FIELD_LIMIT", DEFAULT_CUSTOM_FIELD_LIMIT)
    now = timezone.now()
    try:
        with transaction.atomic():
            if CustomField.objects.filter(owner=owner, name_key=field_name_key(name)).exists():
                raise ApiError(400, *DUPLICATE_NAME)
            if CustomField.objects.filter(owner=owner).count() >= limit:
                raise ApiError(400, *TOO_MANY_FIELDS)
            field = CustomField.objects.create(
                partner=partner,
                owner=owner,
                field_name=name,
                name_key=field_name_key(name),
                type=field_type,
                default_value=default_value,
                dropdown_options=options,
                description=description,
                filterable=filterable,
                created_at=now,
                updated_at=now,
            )
    except IntegrityError as error:  # the same name created concurrently
        raise ApiError(400, *DUPLICATE_NAME) from error
    return JsonResponse(
        {
            "id": field.pk,
            "fieldName": field.field_name,
            "created": epoch_millis(field.created_at),
            "updated": epoch_millis(field.updated_at),
        }
    )


# ---------------------------------------------------------------------------- hierarchy
@provider_endpoint("POST")
def update_hierarchy(
    request: HttpRequest, partner: PartnerAccount, business_id: str
) -> HttpResponse:
    """Replace the location's whole mapping (level name -> level value)."""
    number = parse_number(business_id, "businessId")
    levels = json_body(request)
    if not isinstance(levels, dict):
        raise bad_input("Request body must be a JSON object of level name -> level value")
    for name, value in levels.items():
        if not name.strip() or len(name) > 200:
            raise bad_input("Level names must have 1 to 200 characters")
        if not isinstance(value, str):
            raise bad_input(f"Level value of {name} must be a string")
    location = find_location(partner, number, unknown_status=401)
    HierarchyMapping.objects.update_or_create(
        location=location,
        defaults={"partner": partner, "levels": levels, "updated_at": timezone.now()},
    )
    return empty_ok()


# --------------------------------------------------------------------------- AI search
DEFAULT_AI_SEARCH = {
    "frequency": "Monthly",
    "quota": 0,
    "billingType": "CREDIT_SYSTEM",
    "themes": [],
}


@provider_endpoint("GET")
def ai_search_configuration(request: HttpRequest, partner: PartnerAccount) -> HttpResponse:
    """The account's configuration, else its nearest configured ancestor's, else a default."""
    business = find_business(partner, header_number(request, "x-business-number"))
    ancestors = BusinessAncestor.objects.filter(descendant=business).order_by("depth")
    config = _nearest(business, ancestors)
    if config is None:
        return JsonResponse(DEFAULT_AI_SEARCH)
    return JsonResponse(
        {
            "frequency": config.frequency,
            "quota": config.quota,
            "billingType": config.billing_type,
            "themes": config.themes,
        }
    )


def _nearest(business: Business, ancestors) -> AiSearchConfig | None:
    configs = {
        config.business_id: config
        for config in AiSearchConfig.objects.filter(business_id__in=ancestors.values("ancestor_id"))
    }
    for link in ancestors:
        if link.ancestor_id in configs:
            return configs[link.ancestor_id]
    return None
