"""Deterministic seeding of one partner account (``manage.py sandbox_seed``).

Seeding a key sets its account to the state the seed describes: the account's existing data is
wiped (one DELETE per table) and generated again, so running it twice with the same key, seed
and options gives the same rows, not twice as many. Content comes from the seed alone; numbers
and ids also depend on the key, so two keys seeded with the same seed never share a business
number. Dates are relative to the anchor day (today unless given), timestamps to its midnight
UTC, so nothing depends on the wall clock within that day.
"""

from __future__ import annotations

import datetime
import json
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, models, transaction
from django.utils import timezone

from sandbox import seed_data as words
from sandbox import wire
from sandbox.auth import hash_key, key_prefix
from sandbox.catalog import (
    ACTION_REQUIRED_ERRORS,
    CONNECTABLE_SITE_IDS,
    PROFILE_SITE_ID,
    REVIEW_SOURCES,
    SITES,
    SURVEY_QUESTION_TYPES,
    TRADES,
    SiteState,
    category_catalog,
)
from sandbox.models import (
    AiSearchConfig,
    Answer,
    Business,
    BusinessAncestor,
    BusinessType,
    Category,
    CompetitorBrand,
    CompetitorLink,
    CompetitorLocation,
    CompetitorReview,
    CustomField,
    HierarchyMapping,
    Listing,
    ListingSubmission,
    MediaItem,
    PartnerAccount,
    Question,
    RateLimitCounter,
    Review,
    SiteStatus,
    Subscription,
    Survey,
    SurveyResponse,
)

BATCH = 2000
MEDIA_HOST = "https://media.example.com"
TRADES_BY_NAME = {trade.name: trade for trade in TRADES}
MAX_RESPONSES_PER_SURVEY = 400

# Children before parents: the order in which a partner's rows can be deleted.
PARTNER_TABLES: tuple[type[models.Model], ...] = (
    Answer,
    Question,
    SurveyResponse,
    Survey,
    CompetitorReview,
    CompetitorLink,
    CompetitorLocation,
    CompetitorBrand,
    Review,
    SiteStatus,
    ListingSubmission,
    Listing,
    MediaItem,
    CustomField,
    HierarchyMapping,
    AiSearchConfig,
    Subscription,
    RateLimitCounter,
    BusinessAncestor,
    Business,
)


SITE_COLUMNS = (
    "partner_id",
    "location_id",
    "site_id",
    "status",
    "errors",
    "url",
    "connected",
    "outcome",
    "outcome_errors",
    "step_seconds",
    "next_change_at",
    "revision",
    "updated_at",
)
PUBLISHED_SITE_WEIGHTS = {
    SiteState.SYNCED: 75,
    SiteState.IN_PROGRESS: 10,
    SiteState.SUBMITTED: 5,
    SiteState.ACTION_REQUIRED: 10,
}


class SeedError(ValueError):
    """Options the seeder cannot use."""


def parse_rate_limit(text: str) -> tuple[int, int]:
    """``COUNT/SECONDS``, e.g. ``100/60``."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not match or int(match[1]) < 1 or int(match[2]) < 1:
        raise SeedError("rate limit must be COUNT/SECONDS with both at least 1, e.g. 100/60")
    return int(match[1]), int(match[2])


# ------------------------------------------------------------------------------ helpers
class Ids:
    """Unique ids for one partner, drawn from an RNG seeded by the key and the seed."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[int] = set()

    def draw(self, digits: int) -> int:
        low, high = 10 ** (digits - 1), 10**digits - 1
        while True:
            value = self.rng.randint(low, high)
            if value not in self.used:
                self.used.add(value)
                return value

    def hex(self, length: int) -> str:
        return f"{self.rng.getrandbits(length * 4):0{length}x}"


def weighted(rng: random.Random, choices: dict[Any, int]) -> Any:
    return rng.choices(list(choices), weights=list(choices.values()))[0]


def _bulk(model: type[models.Model], rows: Iterable[models.Model]) -> list[models.Model]:
    return model.objects.bulk_create(list(rows), batch_size=BATCH)


def _column_adapter(field: models.Field, copying: bool):
    """How one column's Python value becomes a parameter (or a COPY value), without the ORM."""
    if isinstance(field, models.JSONField):
        memo: dict[str, Any] = {}

        def adapt_json(value: Any) -> Any:
            key = json.dumps(value, sort_keys=True)
            if key not in memo:
                memo[key] = key if copying else field.get_db_prep_save(value, connection)
            return memo[key]

        return adapt_json
    if copying:
        return None  # COPY's text format takes dates, datetimes and booleans as they are
    if isinstance(field, models.DateTimeField):
        return connection.ops.adapt_datetimefield_value
    if isinstance(field, models.DateField):
        return connection.ops.adapt_datefield_value
    return None


def fast_insert(model: type[models.Model], columns: tuple[str, ...], rows: list[tuple]) -> None:
    """INSERT many rows given as tuples in ``columns`` order (attnames, e.g. ``location_id``).

    The ORM's bulk_create spends most of its time compiling SQL per value; for the hundreds of
    thousands of site statuses and reviews of a large seed, COPY (PostgreSQL) or executemany
    (SQLite) is several times faster.
    """
    copying = connection.vendor == "postgresql"
    fields = {field.attname: field for field in model._meta.concrete_fields}
    adapters = [
        (index, adapt)
        for index, name in enumerate(columns)
        if (adapt := _column_adapter(fields[name], copying)) is not None
    ]

    def prepared(batch: list[tuple]) -> list[tuple] | list[list]:
        if not adapters:
            return batch
        out = []
        for row in batch:
            values = list(row)
            for index, adapt in adapters:
                if values[index] is not None:
                    values[index] = adapt(values[index])
            out.append(values)
        return out

    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(fields[name].column) for name in columns)
    with connection.cursor() as cursor:
        if copying:
            with cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                for row in prepared(rows):
                    copy.write_row(row)
            return
        sql = f"INSERT INTO {table} ({names}) VALUES ({', '.join(['%s'] * len(columns))})"  # noqa: S608
        for start in range(0, len(rows), BATCH * 5):
            cursor.executemany(sql, prepared(rows[start : start + BATCH * 5]))


@dataclass
class Place:
    country: str
    city: words.City
    address1: str
    address2: str
    sub_locality: str
    zip: str
    phone: str


def make_place(rng: random.Random, country: str | None = None) -> Place:
    if country is None:
        country = weighted(rng, {code: weight for code, (weight, _) in words.CITIES.items()})
    city = rng.choice(words.CITIES[country][1])
    address1 = (
        f"{rng.randint(1, 9999)} {rng.choice(words.STREETS)} {rng.choice(words.STREET_KINDS)}"
    )
    address2 = rng.choice(words.UNITS) if rng.random() < 0.25 else ""
    letters = "ABDEFGHJLNPRSTUWXYZ"
    if country == "US":
        postal = f"{city.zip_prefix}{rng.randint(0, 99):02d}"
    elif country == "CA":
        postal = f"{city.zip_prefix} {rng.randint(1, 9)}{rng.choice(letters)}{rng.randint(1, 9)}"
    elif country == "UK":
        postal = f"{city.zip_prefix} {rng.randint(1, 9)}{rng.choice(letters)}{rng.choice(letters)}"
    else:
        postal = f"{city.zip_prefix}{rng.randint(10, 99)}"
    phone = f"({rng.choice(city.area_codes)}) {rng.randint(200, 999)}-{rng.randint(0, 9999):04d}"
    sub_locality = rng.choice(city.suburbs) if city.suburbs else ""
    return Place(country, city, address1, address2, sub_locality, postal, phone)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())[:40] or "business"


def person(rng: random.Random) -> str:
    return f"{rng.choice(words.FIRST_NAMES)} {rng.choice(words.LAST_NAMES)}"


# --------------------------------------------------------------------- listing payloads
def _week_hours() -> list[dict[str, Any]]:
    nine, five, ten, two = 9 * 3600, 17 * 3600, 10 * 3600, 14 * 3600
    days = [
        {"day": day, "isOpen": 1, "workingHours": [{"startHour": nine, "endHour": five}]}
        for day in range(5)
    ]
    days.append({"day": 5, "isOpen": 1, "workingHours": [{"startHour": ten, "endHour": two}]})
    days.append({"day": 6, "isOpen": 0, "workingHours": []})
    return days


def listing_payload(location: Business, trade_name: str, place: Place, opted_out: bool) -> dict:
    """A valid create-listing body describing a seeded location as it was published."""
    trade = TRADES_BY_NAME[trade_name]
    address = {
        "address1": location.address1,
        "address2": location.address2,
        "city": location.city,
        "state": location.state,
        "zip": location.zip,
        "countryCode": location.country_code,
    }
    if location.country_code == "NZ":
        address["subLocality"] = location.sub_locality
    payload = {
        "businessInfo": {
            "name": location.name,
            "phone": location.phone,
            "websiteUrl": location.website_url,
            "emailId": location.email,
            "isAddressHidden": False,
            "isServiceAreaProvider": False,
            "mainBusinessDescription": f"{location.name}: {trade.name.lower()} in {location.city}.",
            "location": address,
        },
        "additionalInfo": {
            "timezone": place.city.timezone,
            "languages": ["English"],
            "hoursOfOperations": _week_hours(),
            "wholeWeekOperating": 0,
            "businessStatus": "Open",
            "paymentTypes": ["Cash", "Credit Card", "Contactless"],
            "keywords": f"{trade.name.lower()}, {location.city.lower()}",
        },
        "profileListing": {"primaryCategoryProfile": trade.name, "additionalCategories": []},
        "mapsListing": {"primaryCategory": trade.maps_path},
        "optOut": {"profileListingOptOut": opted_out},
    }
    if trade.specialty:
        payload["healthcare"] = {"doctorCategories": [trade.specialty], "isProvider": True}
    return payload


# ------------------------------------------------------------------------------ seeding
@dataclass
class Seeded:
    """What the seeder made, for its JSON summary."""

    root: Business | None = None
    sub_resellers: list[Business] = field(default_factory=list)
    enterprises: list[Business] = field(default_factory=list)
    locations: list[Business] = field(default_factory=list)
    surveys: list[Survey] = field(default_factory=list)
    subscriptions: list[Subscription] = field(default_factory=list)


class PartnerSeeder:
    def __init__(self, partner: PartnerAccount, seed: int, anchor: datetime.date) -> None:
        self.partner = partner
        # Reproducible data, not secrets: a seeded PRNG is the point.
        self.rng = random.Random(f"content:{seed}")  # noqa: S311
        self.ids = Ids(random.Random(f"ids:{partner.key_hash}:{seed}"))  # noqa: S311
        self.anchor = anchor
        self.midnight = datetime.datetime.combine(anchor, datetime.time(), tzinfo=datetime.UTC)
        self.made = Seeded()
        self.trade_of: dict[int, str] = {}  # business number -> trade name
        self.place_of: dict[int, Place] = {}

    def days_ago(self, low: int, high: int) -> datetime.date:
        return self.anchor - datetime.timedelta(days=self.rng.randint(low, high))

    def moment_ago(self, max_days: int) -> datetime.datetime:
        return self.midnight - datetime.timedelta(
            days=self.rng.randint(0, max_days), minutes=self.rng.randint(0, 24 * 60 - 1)
        )

    # -- tree ---------------------------------------------------------------------------
    def _business(self, parent: Business | None, type_: str, name: str, **fields: Any) -> Business:
        return Business(
            partner=self.partner,
            number=self.ids.draw(15),
            parent=parent,
            type=type_,
            name=name,
            status=fields.pop("status", "active"),
            created_on=self.days_ago(400, 2500),
            created_by=person(self.rng),
            last_updated=self.midnight,
            **fields,
        )

    def seed_tree(self, location_count: int) -> None:
        rng = self.rng
        agency = rng.choice(words.AGENCY_NAMES)
        root = self._business(None, BusinessType.RESELLER, agency, alias="agency")
        root.save()
        subs = [
            self._business(
                root, BusinessType.RESELLER, f"{agency} {region}", alias=f"sub-{region.lower()}"
            )
            for region in ("West", "East")
        ]
        _bulk(Business, subs)
        parents = [root, *subs]
        enterprises = []
        for index, (brand, kind, trade) in enumerate(words.ENTERPRISE_BRANDS):
            enterprise = self._business(
                parents[index // 2], kind, brand, alias=f"ent-{slug(brand)}"
            )
            self.trade_of[enterprise.number] = trade
            enterprises.append(enterprise)
        _bulk(Business, enterprises)

        smb_count = location_count // 10
        locations = []
        for index in range(location_count):
            if index < smb_count:
                parent, trade = parents[index % len(parents)], rng.choice(TRADES).name
            else:
                parent = enterprises[(index - smb_count) % len(enterprises)]
                trade = self.trade_of[parent.number]
            locations.append(self._location(parent, trade, index))
        _bulk(Business, locations)

        self.made.root, self.made.sub_resellers = root, subs
        self.made.enterprises, self.made.locations = enterprises, locations
        self._seed_ancestry([root, *subs, *enterprises, *locations])

    def _location(self, parent: Business, trade: str, index: int) -> Business:
        rng = self.rng
        # Cycling through the countries puts all four in even a small seed.
        place = make_place(rng, words.COUNTRY_CYCLE[index % len(words.COUNTRY_CYCLE)])
        if parent.type == BusinessType.RESELLER:
            name = f"{rng.choice(words.PLACE_WORDS)} {trade}"
            alias = ""
        else:
            name = f"{parent.name} - {place.city.name}"
            alias = f"LOC-{index + 1:05d}"
        site = slug(name)
        location = self._business(
            parent,
            BusinessType.BUSINESS,
            name,
            alias=alias,
            address1=place.address1,
            address2=place.address2,
            sub_locality=place.sub_locality,
            city=place.city.name,
            state=place.city.state,
            zip=place.zip,
            country_code=place.country,
            phone=place.phone,
            website_url=f"https://www.{site}.example",
            email=f"hello@{site}.example",
            status=weighted(rng, {"active": 85, "demo": 10, "inactive": 5}),
        )
        self.trade_of[location.number] = trade
        self.place_of[location.number] = place
        return location

    def _seed_ancestry(self, businesses: list[Business]) -> None:
        by_id: dict[int, list[tuple[int, int]]] = {}
        rows = []
        for business in businesses:  # parents come before their children
            chain = [(business.pk, 0)] + [
                (ancestor, depth + 1) for ancestor, depth in by_id.get(business.parent_id, [])
            ]
            by_id[business.pk] = chain
            rows.extend(
                (self.partner.pk, ancestor, business.pk, depth) for ancestor, depth in chain
            )
        fast_insert(BusinessAncestor, ("partner_id", "ancestor_id", "descendant_id", "depth"), rows)

    # -- listings and sites -------------------------------------------------------------
    def seed_listings(self) -> None:
        rng = self.rng
        listings, sites, mappings = [], [], []
        for location in self.made.locations:
            published = location.status != "inactive" and rng.random() < 0.6
            opted_out = rng.random() < 0.03
            unconnected = {
                site_id
                for site_id, chance in zip(CONNECTABLE_SITE_IDS, (0.1, 0.2), strict=True)
                if rng.random() < chance
            }
            if published:
                listings.append(
                    Listing(
                        partner=self.partner,
                        location=location,
                        payload=listing_payload(
                            location,
                            self.trade_of[location.number],
                            self.place_of[location.number],
                            opted_out,
                        ),
                        fixed=True,
                        version=1,
                        submitted_at=self.moment_ago(90),
                    )
                )
            for site in SITES:
                sites.append(self._site(location, site, published, opted_out, unconnected))
            if location.parent.type == BusinessType.ENTERPRISE_LOCATION:
                mappings.append(
                    HierarchyMapping(
                        partner=self.partner,
                        location=location,
                        levels={
                            "Region": rng.choice(words.REGIONS),
                            "District": f"District {rng.randint(1, 12)}",
                            "Country": location.country_code,
                        },
                        updated_at=self.midnight,
                    )
                )
        _bulk(Listing, listings)
        fast_insert(SiteStatus, SITE_COLUMNS, sites)
        _bulk(HierarchyMapping, mappings)

    def _site(self, location, site, published: bool, opted_out: bool, unconnected) -> tuple:
        """One site status row, as a tuple in SITE_COLUMNS order."""
        rng = self.rng
        status, errors, url = SiteState.SYNCED, [], ""
        outcome, outcome_errors, step_seconds, next_change_at = "", [], 0, None
        if site.site_id in unconnected:
            status, errors = SiteState.CONNECT, ["Connect this site's account to publish"]
        elif opted_out and site.site_id == PROFILE_SITE_ID:
            status = SiteState.OPTED_OUT
        elif not published:
            # A location never published: the scan found it missing or wrong on most sites.
            status = weighted(rng, {SiteState.ACTION_REQUIRED: 70, SiteState.SYNCED: 30})
            if status == SiteState.ACTION_REQUIRED:
                errors = [rng.choice(("Listing not found on this site", *ACTION_REQUIRED_ERRORS))]
        else:
            status = weighted(rng, PUBLISHED_SITE_WEIGHTS)
            if status == SiteState.ACTION_REQUIRED:
                errors = [rng.choice(ACTION_REQUIRED_ERRORS)]
            elif status in (SiteState.SUBMITTED, SiteState.IN_PROGRESS):
                # Still on its way: it finishes some hours after the anchor's midnight.
                outcome = SiteState.SYNCED if rng.random() < 0.85 else SiteState.ACTION_REQUIRED
                if outcome == SiteState.ACTION_REQUIRED:
                    outcome_errors = [rng.choice(ACTION_REQUIRED_ERRORS)]
                step_seconds = 3600 * rng.randint(1, 12)
                next_change_at = self.midnight + datetime.timedelta(seconds=step_seconds)
        if status == SiteState.SYNCED:
            url = site.listing_url(location.number)
        return (
            self.partner.pk,
            location.pk,
            site.site_id,
            status,
            errors,
            url,
            site.site_id not in unconnected,
            outcome,
            outcome_errors,
            step_seconds,
            next_change_at,
            0,
            self.midnight,
        )

    # -- media, reviews, Q&A ------------------------------------------------------------
    def seed_media(self) -> None:
        rng, items = self.rng, []
        for location in self.made.locations:
            if rng.random() >= 0.4:
                continue
            for index in range(rng.randint(1, 3)):
                category = rng.choice(("EXTERIOR", "INTERIOR", "TEAMS", "ADDITIONAL"))
                items.append(
                    MediaItem(
                        partner=self.partner,
                        location=location,
                        media_id=self.ids.hex(24),
                        url=f"{MEDIA_HOST}/{location.number}/{category.lower()}-{index + 1}.jpg",
                        category=category,
                        description=f"{category.title()} of {location.name}",
                        format="PHOTO",
                        created_at=self.moment_ago(365),
                    )
                )
        _bulk(MediaItem, items)

    def seed_reviews(self) -> None:
        rng, reviews = self.rng, []
        sources = {
            "profile": 40,
            "social": 15,
            "engine": 15,
            "provider": 15,
            "maps": 5,
            "directory": 10,
        }
        ratings = {5: 45, 4: 25, 3: 12, 2: 8, 1: 7, 0: 3}
        source_names, source_weights = list(sources), list(sources.values())
        rating_values, rating_weights = list(ratings), list(ratings.values())
        for location in self.made.locations:
            count = rng.randint(0, 16)
            picked_sources = rng.choices(source_names, weights=source_weights, k=count)
            picked_ratings = rng.choices(rating_values, weights=rating_weights, k=count)
            for source, rating in zip(picked_sources, picked_ratings, strict=True):
                reviews.append(
                    (
                        self.partner.pk,
                        location.pk,
                        source,
                        REVIEW_SOURCES[source],
                        rating,
                        self.days_ago(0, 730),
                    )
                )
        fast_insert(
            Review,
            ("partner_id", "location_id", "source", "site_id", "rating", "review_date"),
            reviews,
        )

    def seed_questions(self) -> None:
        rng = self.rng
        questions, answers = [], []
        for location in self.made.locations:
            if rng.random() >= 0.8:
                continue
            for text_index in rng.sample(range(len(words.QUESTIONS)), rng.randint(1, 3)):
                asked = self.moment_ago(365)
                question = Question(
                    partner=self.partner,
                    location=location,
                    question_id=self.ids.draw(13),
                    text=words.QUESTIONS[text_index],
                    asked_by_owner=rng.random() < 0.1,
                    updated_by=person(self.rng),
                    updated_at=asked,
                    user_profile_logo_url=f"{MEDIA_HOST}/avatars/{rng.randint(1, 500)}.png",
                    user_category="CUSTOMER",
                )
                questions.append(question)
                for answer_index in range(rng.randint(0, 2)):
                    by_owner = answer_index == 0 and rng.random() < 0.6
                    answers.append(
                        Answer(
                            partner=self.partner,
                            question=question,
                            answer_id=self.ids.draw(13),
                            text=words.ANSWERS[text_index]
                            if by_owner
                            else rng.choice(words.ANSWERS),
                            updated_by=location.name if by_owner else person(self.rng),
                            updated_at=asked + datetime.timedelta(hours=rng.randint(1, 72)),
                            user_profile_logo_url=f"{MEDIA_HOST}/avatars/owner.png"
                            if by_owner
                            else f"{MEDIA_HOST}/avatars/{rng.randint(1, 500)}.png",
                            answered_by_owner=by_owner,
                            user_category="MERCHANT" if by_owner else "LOCAL_GUIDE",
                        )
                    )
                    question.answered_by_owner = question.answered_by_owner or by_owner
        _bulk(Question, questions)
        _bulk(Answer, answers)

    # -- surveys ------------------------------------------------------------------------
    def seed_surveys(self) -> None:
        rng = self.rng
        owners = [self.made.root, *self.made.enterprises]
        surveys = [
            Survey(
                partner=self.partner,
                owner=owner,
                survey_id=self.ids.draw(9),
                name=f"Customer Experience Survey - {owner.name}",
                locale="en",
            )
            for owner in owners
        ]
        _bulk(Survey, surveys)
        survey_of = {survey.owner_id: survey for survey in surveys}
        # SMBs answer the agency's survey, enterprise locations their enterprise's.
        responses, per_survey = [], dict.fromkeys(survey_of, 0)
        for location in self.made.locations:
            owner_id = location.parent_id if location.parent_id in survey_of else self.made.root.pk
            for _ in range(rng.randint(0, 2)):
                if per_survey[owner_id] >= MAX_RESPONSES_PER_SURVEY:
                    break
                per_survey[owner_id] += 1
                responses.append(self._response(survey_of[owner_id], location))
        _bulk(SurveyResponse, responses)
        self.made.surveys = surveys

    def _response(self, survey: Survey, location: Business) -> SurveyResponse:
        rng = self.rng
        requested = self.moment_ago(180)
        completed = rng.random() < 0.85
        answers = survey_answers(rng, location.name) if completed else survey_answers(rng, "")[:3]
        nps = (
            next(int(a["answer"]) for a in answers if a["questionType"] == "nps")
            if completed
            else None
        )
        ticketed = completed and nps is not None and nps <= 6 and rng.random() < 0.7
        return SurveyResponse(
            partner=self.partner,
            survey=survey,
            response_id=self.ids.draw(12),
            location=location,
            customer_id=self.ids.draw(10),
            customer_name=person(rng),
            request_date=requested,
            response_date=requested + datetime.timedelta(hours=rng.randint(1, 96)),
            completed=completed,
            ticketed=ticketed,
            ticket_ids=[self.ids.draw(8)] if ticketed else [],
            question_count=len(SURVEY_QUESTION_TYPES),
            locale="en",
            answers=answers,
            overall_score=f"{nps * 10}" if nps is not None else "",
            custom_param={"visitType": rng.choice(("in-store", "online", "phone"))},
            extra_params={"campaign": f"post-visit-{rng.randint(1, 4)}"},
        )

    # -- competitors --------------------------------------------------------------------
    def seed_competitors(self) -> None:
        rng = self.rng
        brands, competitors, links, reviews = [], [], [], []
        children: dict[int, list[Business]] = {}
        for location in self.made.locations:
            children.setdefault(location.parent_id, []).append(location)
        source_names = list(REVIEW_SOURCES)
        for enterprise in self.made.enterprises:
            trade = self.trade_of[enterprise.number]
            for brand_word in rng.sample(words.COMPETITOR_BRANDS, 3):
                brand = CompetitorBrand(
                    partner=self.partner,
                    owner=enterprise,
                    brand_id=self.ids.draw(8),
                    name=f"{brand_word} {trade}",
                )
                brands.append(brand)
                for _ in range(2):
                    place = make_place(rng)
                    competitor = CompetitorLocation(
                        partner=self.partner,
                        brand=brand,
                        location_id=self.ids.draw(10),
                        name=f"{brand.name} - {place.city.name}, {place.address1}",
                    )
                    competitors.append(competitor)
                    own = children.get(enterprise.pk, [])
                    for location in rng.sample(own, min(4, len(own))):
                        links.append((competitor, location))
                    for source in rng.sample(source_names, 3):
                        for _ in range(rng.randint(3, 8)):
                            reviews.append((competitor, source))
        _bulk(CompetitorBrand, brands)
        _bulk(CompetitorLocation, competitors)
        _bulk(
            CompetitorLink,
            (CompetitorLink(partner=self.partner, competitor=c, location=loc) for c, loc in links),
        )
        _bulk(
            CompetitorReview,
            (
                CompetitorReview(
                    partner=self.partner,
                    competitor=competitor,
                    source=source,
                    site_id=REVIEW_SOURCES[source],
                    rating=rng.choices((5, 4, 3, 2, 1), weights=(35, 30, 15, 10, 10))[0],
                    review_date=self.days_ago(0, 730),
                )
                for competitor, source in reviews
            ),
        )

    # -- account-level settings ---------------------------------------------------------
    def seed_account_settings(self) -> None:
        rng, root = self.rng, self.made.root
        configs = []
        for business in [root, *self.made.enterprises]:
            trade = self.trade_of.get(business.number, "Business")
            city = rng.choice(words.CITIES["US"][1]).name
            themes = [
                {
                    "theme": theme,
                    "prompts": [
                        prompt.format(trade=trade.lower(), city=city, brand=business.name)
                        for prompt in prompts
                    ],
                }
                for theme, prompts in rng.sample(words.AI_THEMES, 2)
            ]
            configs.append(
                AiSearchConfig(
                    partner=self.partner,
                    business=business,
                    frequency=rng.choice(("Monthly", "Weekly")),
                    quota=rng.choice((100, 250, 500)),
                    billing_type="CREDIT_SYSTEM",
                    themes=themes,
                )
            )
        _bulk(AiSearchConfig, configs)
        _bulk(
            CustomField,
            (
                CustomField(
                    partner=self.partner,
                    owner=root,
                    field_name=name,
                    name_key=name.casefold(),
                    type=type_,
                    dropdown_options=options,
                    created_at=self.midnight,
                    updated_at=self.midnight,
                )
                for name, type_, options in (
                    ("Loyalty Tier", "DROPDOWN_SINGLE", ["Bronze", "Silver", "Gold"]),
                    ("Preferred Contact Time", "TEXT", []),
                )
            ),
        )
        subscriptions = [
            Subscription(
                partner=self.partner,
                account=root,
                subscription_id=self.ids.hex(32),
                webhook_url=f"https://hooks.example.com/{slug(root.name)}/{event.lower()}",
                emails=[f"alerts@{slug(root.name)}.example"],
                event_name=event,
                auth=None,
                created_at=self.midnight,
            )
            for event in ("LISTING_UPDATED", "SURVEY_COMPLETED")
        ]
        _bulk(Subscription, subscriptions)
        self.made.subscriptions = subscriptions


def survey_answers(rng: random.Random, location_name: str) -> list[dict[str, Any]]:
    """One answer of every question type, as the provider returns them."""

    def answer(
        title: str, kind: str, value: str | None, low: int = 0, high: int = 0, **more
    ) -> dict:
        entry = {
            "questionTitle": title,
            "questionType": kind,
            "visible": True,
            "conditional": False,
            "shownToCustomer": True,
            "hidden": False,
            "showTime": False,
            "showDate": False,
            "maxValue": high,
            "minValue": low,
        }
        if value is not None:
            entry["answer"] = value
        entry.update(more)
        return entry

    nps = rng.choices(range(11), weights=(1, 1, 1, 1, 2, 2, 3, 6, 10, 12, 12))[0]
    rating = rng.choices(range(1, 6), weights=(1, 2, 4, 8, 10))[0]
    aspects = ("Staff", "Cleanliness", "Value")
    levels = ("Poor", "Fair", "Good", "Excellent")
    return [
        answer(f"Thank you for visiting {location_name or 'us'}!", "label", None),
        answer(
            "How did you hear about us?", "radio", rng.choice(("Search", "Friend", "Social media"))
        ),
        answer(
            "What did you buy?",
            "checkbox",
            ", ".join(rng.sample(("Service", "Product", "Gift card"), 2)),
        ),
        answer(
            "Tell us more about your visit",
            "textarea",
            rng.choice(("Great service.", "Quick and friendly.", "Long wait.")),
        ),
        answer("Name of the staff member who helped you", "text", rng.choice(words.FIRST_NAMES)),
        answer("Which day did you visit?", "dropdown", rng.choice(("Weekday", "Weekend"))),
        answer("Rate your overall experience", "rating", str(rating), 1, 5),
        answer(
            "Rate each aspect",
            "matrixdropdown",
            "",
            childAnswers=[answer(aspect, "dropdown", rng.choice(levels)) for aspect in aspects],
        ),
        answer("How likely are you to recommend us?", "nps", str(nps), 0, 10),
        answer(
            "How satisfied were you with",
            "matrixradio",
            "",
            childAnswers=[answer(aspect, "radio", rng.choice(levels)) for aspect in aspects],
        ),
    ]


# ---------------------------------------------------------------------------- entry point
def wipe_partner_data(partner: PartnerAccount) -> None:
    """Delete every row of the partner but the account itself, children first.

    Raw DELETEs because Django's deletion collector would load every row into memory first.
    Table names come from the models, never from input.
    """
    with connection.cursor() as cursor:
        for model in PARTNER_TABLES:
            cursor.execute(
                f"DELETE FROM {model._meta.db_table} WHERE partner_id = %s",  # noqa: S608
                [partner.pk],
            )


def ensure_category_catalog() -> None:
    """Put the provider's category catalogue in place (the same for every partner)."""
    entries = category_catalog()
    if Category.objects.count() == len(entries):
        return
    # Nothing refers to a category row, so the catalogue can simply be replaced.
    Category.objects.all().delete()
    fast_insert(Category, ("source", "country_code", "category_id", "name", "primary"), entries)


def seed_partner(
    *,
    api_key: str,
    locations: int = 50,
    seed: int = 1,
    rate_limit: str | tuple[int, int] | None = None,
    latency_ms: int | None = None,
    error_rate: float | None = None,
    status_step_seconds: int | None = None,
    anchor: datetime.date | None = None,
    dialect: str | None = None,
) -> dict[str, Any]:
    """Create or reset the partner account of ``api_key``; return the seeder's summary.

    Fault options left as None keep the account's current values (defaults for a new account).
    """
    if not api_key or api_key != api_key.strip():
        raise SeedError("api_key must be a non-empty string without surrounding whitespace")
    if locations < 0:
        raise SeedError("locations must be 0 or more")
    if error_rate is not None and not 0 <= error_rate <= 1:
        raise SeedError("error rate must be between 0 and 1")
    if latency_ms is not None and latency_ms < 0:
        raise SeedError("latency must be 0 or more milliseconds")
    if status_step_seconds is not None and status_step_seconds < 0:
        raise SeedError("status step must be 0 or more seconds")
    if dialect is not None and dialect not in wire.DIALECTS:
        raise SeedError(f"dialect must be one of {', '.join(wire.DIALECTS)}")
    limit = parse_rate_limit(rate_limit) if isinstance(rate_limit, str) else rate_limit
    anchor = anchor or timezone.localdate()

    with transaction.atomic():
        ensure_category_catalog()
        partner, _ = PartnerAccount.objects.get_or_create(
            key_hash=hash_key(api_key),
            defaults={
                "name": f"Sandbox partner {key_prefix(api_key)}",
                "key_prefix": key_prefix(api_key),
            },
        )
        wipe_partner_data(partner)
        if limit is not None:
            partner.rate_limit_count, partner.rate_limit_window_seconds = limit
        if latency_ms is not None:
            partner.latency_ms = latency_ms
        if error_rate is not None:
            partner.error_rate = error_rate
        if status_step_seconds is not None:
            partner.status_step_seconds = status_step_seconds
        if dialect is not None:
            partner.dialect = dialect
        partner.seed, partner.seeded_locations = seed, locations

        seeder = PartnerSeeder(partner, seed, anchor)
        seeder.seed_tree(locations)
        seeder.seed_listings()
        seeder.seed_media()
        seeder.seed_reviews()
        seeder.seed_questions()
        seeder.seed_surveys()
        seeder.seed_competitors()
        seeder.seed_account_settings()
        partner.account_number = seeder.made.root.number
        partner.save()

    made = seeder.made
    return {
        "api_key": api_key,
        "account_number": made.root.number,
        "sub_reseller_ids": [business.number for business in made.sub_resellers],
        "enterprise_ids": [business.number for business in made.enterprises],
        "location_numbers": [business.number for business in made.locations],
        "survey_ids": [survey.survey_id for survey in made.surveys],
        "subscription_ids": [subscription.subscription_id for subscription in made.subscriptions],
        "seed": seed,
        "anchor_date": anchor.isoformat(),
        "rate_limit": f"{partner.rate_limit_count}/{partner.rate_limit_window_seconds}",
        "latency_ms": partner.latency_ms,
        "error_rate": partner.error_rate,
        "status_step_seconds": partner.status_step_seconds,
        "dialect": partner.dialect,
        "base_path": "/sandbox",
    }
