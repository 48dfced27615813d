"""Listing operations: create listing (1), location status report (12), category list (13)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse

from sandbox import wire
from sandbox.catalog import CATEGORY_COUNTRIES, CATEGORY_SOURCES
from sandbox.endpoint import empty_ok, provider_endpoint
from sandbox.errors import INPUT_ERROR, ApiError
from sandbox.inputs import json_body, parse_number, query_number, raw_body
from sandbox.models import Business, Category, PartnerAccount
from sandbox.publishing import record_unreadable, submit_listing
from sandbox.status import status_report
from sandbox.tree import NOT_A_LOCATION, find_business, find_location


@provider_endpoint("POST")
def create_listing(
    request: HttpRequest, partner: PartnerAccount, business_number: str
) -> HttpResponse:
    number = parse_number(business_number, "businessNumber")
    sent = ""  # stays empty when the body was too large to read
    try:
        sent = raw_body(request).decode("utf-8", errors="replace")
        payload = json_body(request)
    except ApiError as unreadable:
        location = Business.objects.filter(partner=partner, number=number, type="Business").first()
        if location is not None:
            record_unreadable(partner, location, sent, unreadable)
        raise
    location = find_location(partner, number)
    try:
        submit_listing(partner, location, wire.listing_payload(partner.dialect, payload), sent)
    except ApiError as refused:
        refused.message = wire.message(partner.dialect, refused.message)
        raise
    return empty_ok()


@provider_endpoint("GET")
def location_status_report(request: HttpRequest, partner: PartnerAccount) -> HttpResponse:
    number = query_number(request, "businessNumber")
    location = Business.objects.filter(partner=partner, number=number).first()
    if location is None:
        raise ApiError(404, 1175, "No business found with the given id")
    if not location.is_location:
        raise ApiError(*NOT_A_LOCATION)
    return JsonResponse(status_report(location))


def _category_error(message: str) -> ApiError:
    return ApiError(400, INPUT_ERROR, message)


@provider_endpoint("GET")
def category_list(
    request: HttpRequest, partner: PartnerAccount, business_number: str
) -> HttpResponse:
    number = parse_number(business_number, "businessNumber")
    source = request.GET.get("sourceName", "").strip()
    country = request.GET.get("countryCode", "").strip()
    if not source:
        raise _category_error("Source name not found")
    source = wire.category_source(partner.dialect, source)
    if source not in CATEGORY_SOURCES:
        raise _category_error("Invalid Source Name")
    if not country:
        raise _category_error("Country code not found")
    if country not in CATEGORY_COUNTRIES:
        raise _category_error("Invalid country code")
    find_business(partner, number)
    categories = Category.objects.filter(source=source, country_code=country).order_by("name", "pk")
    entries = []
    for category in categories:
        entry = {"id": category.category_id, "name": category.name}
        if source == "VENDOR":
            entry["primary"] = category.primary
        entries.append(entry)
    return JsonResponse(entries, safe=False)
