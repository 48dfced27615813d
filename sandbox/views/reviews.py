"""Review reports: count by rating (7), competitive ranking (8), competitor metrics (2)."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Avg, Count, Max, QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse

from sandbox import wire
from sandbox.endpoint import provider_endpoint
from sandbox.errors import ApiError, bad_input
from sandbox.inputs import (
    body_list,
    check_date_order,
    check_window,
    header_number,
    id_items,
    int_items,
    is_digits,
    json_object,
    parse_date,
    parse_number,
    query_int,
    query_number,
    string_items,
)
from sandbox.models import (
    Business,
    CompetitorLink,
    CompetitorLocation,
    CompetitorReview,
    PartnerAccount,
    Review,
)
from sandbox.tree import find_business, locations_by_number, subtree_ids, subtree_locations

MAX_BRAND_IDS = 5
RATINGS = range(6)


def _date_range(body: dict, start_name: str, end_name: str):
    start = parse_date(body.get(start_name), start_name)
    end = parse_date(body.get(end_name), end_name)
    check_date_order(start, end, start_name, end_name)
    return start, end


def _within(reviews: QuerySet, start, end) -> QuerySet:
    if start:
        reviews = reviews.filter(review_date__gte=start)
    if end:
        reviews = reviews.filter(review_date__lte=end)
    return reviews


@provider_endpoint("POST", missing_key_status=400)
def count_by_rating(
    request: HttpRequest, partner: PartnerAccount, business_id: str
) -> HttpResponse:
    number = parse_number(business_id, "BusinessId")
    body = json_object(request, required=False)
    numbers = int_items(body_list(body, "businessNumbers"), "businessNumbers")
    aliases = [wire.review_source_in(partner.dialect, alias)
               for alias in string_items(body_list(body, "sourceAlias"), "sourceAlias")]
    start, end = _date_range(body, "fromDate", "toDate")
    business = find_business(partner, number)
    if numbers:
        reviews = Review.objects.filter(location__in=locations_by_number(business, numbers))
    else:
        reviews = Review.objects.filter(location_id__in=subtree_ids(business))
    if aliases:
        reviews = reviews.filter(source__in=aliases)
    reviews = _within(reviews, start, end)
    counts = dict(reviews.values_list("rating").annotate(n=Count("id")).order_by())
    return JsonResponse(
        {
            "reviewCount": sum(counts.values()),
            "countByRating": [
                {"rating": rating, "count": counts.get(rating, 0)} for rating in RATINGS
            ],
        }
    )


# ------------------------------------------------------------------ competitive ranking
def split_percentages(parts: list[int]) -> list[int]:
    """Whole percentages of ``parts`` that add up to 100 (largest remainder), or all 0."""
    total = sum(parts)
    if not total:
        return [0 for _ in parts]
    exact = [part * 100 / total for part in parts]
    whole = [int(value) for value in exact]
    by_remainder = sorted(range(len(parts)), key=lambda i: (exact[i] - whole[i], -i), reverse=True)
    for index in by_remainder[: 100 - sum(whole)]:
        whole[index] += 1
    return whole


def ranking_entry(name: str, counts_by_rating: dict[int, int]) -> dict:
    """Sentiment from the star rating: 4-5 positive, 3 neutral, 0-2 negative."""
    positive = sum(n for rating, n in counts_by_rating.items() if rating >= 4)
    neutral = counts_by_rating.get(3, 0)
    negative = sum(n for rating, n in counts_by_rating.items() if rating <= 2)
    count = positive + neutral + negative
    stars = sum(rating * n for rating, n in counts_by_rating.items())
    # Rating 0 is a review without a rating (count-by-rating's "0"): it has no stars to
    # average, so it counts in `count` but not in `rating`.
    rated = sum(n for rating, n in counts_by_rating.items() if rating > 0)
    positive_percent, neutral_percent, negative_percent = split_percentages(
        [positive, neutral, negative]
    )
    return {
        "positiveCount": positive,
        "neutralCount": neutral,
        "negativeCount": negative,
        "positivePercent": positive_percent,
        "neutralPercent": neutral_percent,
        "negativePercent": negative_percent,
        "name": name,
        "count": count,
        "rating": round(stars / rated, 2) if rated else 0,
    }


def _review_sites(body: dict) -> list[int]:
    sites = []
    for index, value in enumerate(body_list(body, "reviewSites")):
        if not (isinstance(value, str) and is_digits(value.strip())):
            raise bad_input(f"reviewSites[{index}] must be a string holding a numeric site id")
        sites.append(int(value))
    return sites


@provider_endpoint("POST")
def competitive_ranking(request: HttpRequest, partner: PartnerAccount) -> HttpResponse:
    number = query_number(request, "businessId")
    body = json_object(request, required=False)
    start, end = _date_range(body, "startDate", "endDate")
    sites = _review_sites(body)
    business = find_business(partner, number)

    own = _within(Review.objects.filter(location_id__in=subtree_ids(business)), start, end)
    theirs = _within(
        CompetitorReview.objects.filter(competitor__brand__owner_id__in=subtree_ids(business)),
        start,
        end,
    )
    if sites:
        own, theirs = own.filter(site_id__in=sites), theirs.filter(site_id__in=sites)
    own_counts = dict(own.values_list("rating").annotate(n=Count("id")).order_by())
    by_brand: dict[str, dict[int, int]] = defaultdict(dict)
    rows = (
        theirs.values_list("competitor__brand__name", "rating").annotate(n=Count("id")).order_by()
    )
    for brand, rating, n in rows:
        by_brand[brand][rating] = by_brand[brand].get(rating, 0) + n
    competitors = sorted(
        (ranking_entry(brand, counts) for brand, counts in by_brand.items()),
        key=lambda entry: (-entry["count"], entry["name"]),
    )
    reply = ranking_entry(business.name, own_counts)
    reply["competitors"] = competitors
    return JsonResponse(reply)


# ------------------------------------------------------------------- competitor metrics
def location_entry(location: Business) -> dict:
    entry = {
        "businessId": location.number,
        "name": location.name,
        "businessNumber": location.number,
        "phone": location.phone,
    }
    if location.alias:
        entry["alias"] = location.alias
    address = ", ".join(
        part
        for part in (location.address1, location.city, f"{location.state} {location.zip}".strip())
        if part
    )
    if address:
        entry["address"] = address
    return entry


@provider_endpoint("POST")
def competitor_metrics(request: HttpRequest, partner: PartnerAccount) -> HttpResponse:
    account_number = header_number(request, "x-business-number")
    start_index = query_int(request, "startIndex", 0)
    page_size = query_int(request, "pageSize", 25)
    sort_order = query_int(request, "sortOrder", 0)
    if sort_order not in (0, 1):
        raise bad_input("Query parameter sortOrder must be 0 (ascending) or 1 (descending)")
    check_window(start_index, page_size)
    body = json_object(request, required=False)
    numbers = int_items(body_list(body, "businessNumbers"), "businessNumbers")
    start, end = _date_range(body, "fromDate", "toDate")
    sources = [wire.review_source_in(partner.dialect, source)
               for source in string_items(body_list(body, "sources"), "sources")]
    brand_ids = id_items(body_list(body, "brandIds"), "brandIds")
    if len(brand_ids) > MAX_BRAND_IDS:
        raise ApiError(400, 2466, "Invalid input request")
    competitor_ids = id_items(body_list(body, "competitorLocationIds"), "competitorLocationIds")
    account = find_business(partner, account_number)

    if numbers:
        locations = locations_by_number(account, numbers)
        links = CompetitorLink.objects.filter(location__in=locations)
    else:
        links = CompetitorLink.objects.filter(location__in=subtree_locations(account))
    competitors = CompetitorLocation.objects.filter(pk__in=links.values("competitor_id"))
    if brand_ids:
        competitors = competitors.filter(brand__brand_id__in=brand_ids)
    if competitor_ids:
        competitors = competitors.filter(location_id__in=competitor_ids)
    reviews = _within(CompetitorReview.objects.filter(competitor__in=competitors), start, end)
    if sources:
        reviews = reviews.filter(source__in=sources)
    latest = "latest" if sort_order == 0 else "-latest"
    groups = list(
        reviews.values("competitor_id", "source")
        .annotate(count=Count("id"), average=Avg("rating"), latest=Max("review_date"))
        .order_by(latest, "competitor_id", "source")[start_index : start_index + page_size]
    )

    page_competitors = CompetitorLocation.objects.select_related("brand").in_bulk(
        {group["competitor_id"] for group in groups}
    )
    page_links = links.filter(competitor_id__in=page_competitors).select_related("location")
    linked: dict[int, list[Business]] = defaultdict(list)
    for link in page_links.order_by("location__number"):
        linked[link.competitor_id].append(link.location)
    return JsonResponse(
        [
            {
                "businessLocations": [
                    location_entry(loc) for loc in linked[group["competitor_id"]]
                ],
                "competitorLocation": page_competitors[group["competitor_id"]].name,
                "competitorBrand": page_competitors[group["competitor_id"]].brand.name,
                "source": wire.review_source_out(partner.dialect, group["source"]),
                "overallRating": round(group["average"], 2),
                "reviewCount": group["count"],
            }
            for group in groups
        ],
        safe=False,
    )
