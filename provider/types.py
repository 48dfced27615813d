"""Plain data exchanged with the provider: request inputs and typed results.

Every result is a frozen dataclass built by ``from_json`` and keeps the JSON it was parsed from
in ``raw`` (the mirror stores it as is). Parsing is lenient about missing fields (``None`` or an
empty collection) because the provider omits optional ones; it is strict only about the shape
(an object where an object is expected), raising ``ReplyShapeError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal, Protocol, Self, TypeVar

JsonObject = Mapping[str, Any]


class ReplyShapeError(ValueError):
    """The reply is JSON but not of the shape the operation documents."""


# -- lenient field readers ---------------------------------------------------------------------


def _object(value: Any, what: str) -> JsonObject:
    if not isinstance(value, Mapping):
        raise ReplyShapeError(f"{what}: expected a JSON object, got {type(value).__name__}")
    return value


def _array(value: Any, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ReplyShapeError(f"{what}: expected a JSON array, got {type(value).__name__}")
    return value


def _int(data: JsonObject, key: str) -> int | None:
    value = data.get(key)
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _float(data: JsonObject, key: str) -> float | None:
    value = data.get(key)
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _str(data: JsonObject, key: str) -> str | None:
    value = data.get(key)
    return None if value is None else str(value)


def _bool(data: JsonObject, key: str) -> bool | None:
    value = data.get(key)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if isinstance(value, int):
        return bool(value)
    return None


def _strings(data: JsonObject, key: str) -> tuple[str, ...]:
    return tuple(str(item) for item in _array(data.get(key), key))


def _string_map(data: JsonObject, key: str) -> dict[str, str]:
    value = data.get(key)
    if not isinstance(value, Mapping):
        return {}
    return {str(k): "" if v is None else str(v) for k, v in value.items()}


class _FromJson(Protocol):
    @classmethod
    def from_json(cls, payload: Any) -> Self: ...


ParsedT = TypeVar("ParsedT", bound=_FromJson)


def parse_list(cls: type[ParsedT], payload: Any, what: str) -> list[ParsedT]:
    """Parse a JSON array of objects with ``cls.from_json``."""
    return [cls.from_json(item) for item in _array(payload, what)]


# -- inputs ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MediaUpload:
    """One item of an add-media request."""

    url: str
    media_category: str  # EXTERIOR, INTERIOR, TEAMS, ADDITIONAL
    media_format: Literal["PHOTO", "VIDEO"] | str
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "mediaCategory": self.media_category,
            "description": self.description,
            "mediaFormat": self.media_format,
        }


@dataclass(frozen=True, slots=True)
class CustomFieldSpec:
    """A create-custom-field request."""

    field_name: str
    type: str  # TEXT, URL, NUMBER, DATE, DROPDOWN_SINGLE, DROPDOWN_MULTI, TEXT_RAW
    default_value: str = ""
    drop_down_options: Sequence[str] = ()
    field_description: str = ""
    filterable: bool = False

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "fieldName": self.field_name,
            "type": self.type,
            "defaultValue": self.default_value,
            "fieldDescription": self.field_description,
            # The contract's sample sends the boolean as a string.
            "filterable": "true" if self.filterable else "false",
        }
        if self.drop_down_options:
            body["dropDownOptions"] = list(self.drop_down_options)
        return body


@dataclass(frozen=True, slots=True)
class WebhookAuth:
    """Basic-auth credentials the provider uses when delivering to a webhook URL."""

    username: str
    password: str = field(repr=False)

    def to_json(self) -> dict[str, str]:
        return {"username": self.username, "password": self.password}


# -- results ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MediaItem:
    media_id: str | None
    url: str | None
    media_category: str | None
    description: str | None
    media_format: str | None
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "media item")
        return cls(
            media_id=_str(data, "mediaId"),
            url=_str(data, "url"),
            media_category=_str(data, "mediaCategory"),
            description=_str(data, "description"),
            media_format=_str(data, "mediaFormat"),
            raw=data,
        )


@dataclass(frozen=True, slots=True)
class CustomField:
    id: int | None
    field_name: str | None
    created: int | None  # epoch milliseconds
    updated: int | None  # epoch milliseconds
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "custom field")
        return cls(
            id=_int(data, "id"),
            field_name=_str(data, "fieldName"),
            created=_int(data, "created"),
            updated=_int(data, "updated"),
            raw=data,
        )


@dataclass(frozen=True, slots=True)
class BusinessLocationRef:
    business_id: int | None
    business_number: int | None
    name: str | None
    alias: str | None
    phone: str | None
    address: str | None

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "business location")
        return cls(
            business_id=_int(data, "businessId"),
            business_number=_int(data, "businessNumber"),
            name=_str(data, "name"),
            alias=_str(data, "alias"),
            phone=_str(data, "phone"),
            address=_str(data, "address"),
        )


@dataclass(frozen=True, slots=True)
class CompetitorReviewMetric:
    business_locations: tuple[BusinessLocationRef, ...]
    competitor_location: str | None
    competitor_brand: str | None
    source: str | None
    overall_rating: float | None
    review_count: int | None
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "competitor review metric")
        return cls(
            business_locations=tuple(
                parse_list(BusinessLocationRef, data.get("businessLocations"), "businessLocations")
            ),
            competitor_location=_str(data, "competitorLocation"),
            competitor_brand=_str(data, "competitorBrand"),
            source=_str(data, "source"),
            overall_rating=_float(data, "overallRating"),
            review_count=_int(data, "reviewCount"),
            raw=data,
        )


@dataclass(frozen=True, slots=True)
class SurveyResponse:
    response_id: int | None
    survey_id: int | None
    customer_id: int | None
    request_date: str | None  # MM/DD/YYYY
    response_date: str | None  # MM/DD/YYYY
    completed: bool | None
    ticketed: bool | None
    question_count: int | None
    locale: str | None
    survey_name: str | None
    location_name: str | None
    customer_name: str | None
    overall_score: str | None
    ticket_ids: tuple[int, ...]
    # Answers nest arbitrarily (matrix types); they are kept as JSON rather than typed.
    answers: tuple[JsonObject, ...]
    custom_param: dict[str, str]
    extra_params: dict[str, str]
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "survey response")
        return cls(
            response_id=_int(data, "responseId"),
            survey_id=_int(data, "surveyId"),
            customer_id=_int(data, "customerId"),
            request_date=_str(data, "requestDate"),
            response_date=_str(data, "responseDate"),
            completed=_bool(data, "completed"),
            ticketed=_bool(data, "ticketed"),
            question_count=_int(data, "questionCount"),
            locale=_str(data, "locale"),
            survey_name=_str(data, "surveyName"),
            location_name=_str(data, "locationName"),
            customer_name=_str(data, "customerName"),
            overall_score=_str(data, "overallScore"),
            ticket_ids=tuple(int(i) for i in _array(data.get("ticketIds"), "ticketIds")),
            answers=tuple(_object(a, "answer") for a in _array(data.get("answers"), "answers")),
            custom_param=_string_map(data, "customParam"),
            extra_params=_string_map(data, "extraParams"),
            raw=data,
        )


@dataclass(frozen=True, slots=True)
class SurveyResponsesPage:
    responses: tuple[SurveyResponse, ...]
    total_responses: int | None
    page_no: int | None
    page_size: int | None
    has_next: bool
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "survey responses")
        return cls(
            responses=tuple(parse_list(SurveyResponse, data.get("responseList"), "responseList")),
            total_responses=_int(data, "totalResponses"),
            page_no=_int(data, "pageNo"),
            page_size=_int(data, "pageSize"),
            has_next=bool(_bool(data, "hasNext")),
            raw=data,
        )


STAR_RATINGS = frozenset({1, 2, 3, 4, 5})


def star_average(count_by_rating: Mapping[int, int] | Mapping[str, int]
                 ) -> tuple[int, Decimal | None]:
    """The number of reviews with a star rating and their average, to two places. The
    provider files a review without a rating under rating 0: it is counted, but it is not a
    zero-star review, so it is in neither figure. Keys may be ints or their strings (as
    mirrored in JSON)."""
    stars = {int(rating): count for rating, count in count_by_rating.items()
             if str(rating).isdigit() and int(rating) in STAR_RATINGS}
    rated = sum(stars.values())
    if not rated:
        return 0, None
    total = sum(rating * count for rating, count in stars.items())
    return rated, (Decimal(total) / rated).quantize(Decimal("0.01"))


@dataclass(frozen=True, slots=True)
class ReviewCountByRating:
    review_count: int | None
    count_by_rating: dict[int, int]  # rating 0..5 -> count
    raw: JsonObject = field(repr=False, compare=False)

    @property
    def rated_and_average(self) -> tuple[int, Decimal | None]:
        return star_average(self.count_by_rating)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "review count by rating")
        counts: dict[int, int] = {}
        for entry in _array(data.get("countByRating"), "countByRating"):
            item = _object(entry, "countByRating entry")
            rating, count = _int(item, "rating"), _int(item, "count")
            if rating is not None:
                counts[rating] = count or 0
        return cls(review_count=_int(data, "reviewCount"), count_by_rating=counts, raw=data)


@dataclass(frozen=True, slots=True)
class CompetitiveRanking:
    name: str | None
    count: int | None
    rating: float | None
    positive_count: int | None
    neutral_count: int | None
    negative_count: int | None
    positive_percent: int | None
    neutral_percent: int | None
    negative_percent: int | None
    competitors: tuple[CompetitiveRanking, ...]
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "competitive ranking")
        return cls(
            name=_str(data, "name"),
            count=_int(data, "count"),
            rating=_float(data, "rating"),
            positive_count=_int(data, "positiveCount"),
            neutral_count=_int(data, "neutralCount"),
            negative_count=_int(data, "negativeCount"),
            positive_percent=_int(data, "positivePercent"),
            neutral_percent=_int(data, "neutralPercent"),
            negative_percent=_int(data, "negativePercent"),
            competitors=tuple(parse_list(cls, data.get("competitors"), "competitors")),
            raw=data,
        )


@dataclass(frozen=True, slots=True)
class QnaAnswer:
    answer_id: int | None
    answer: str | None
    answered_by_owner: bool | None
    updated_by: str | None
    updated_on: str | None  # Mon DD, YYYY
    time: str | None  # hh:mm AM
    user_profile_logo_url: str | None
    user_category: str | None
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "answer")
        return cls(
            answer_id=_int(data, "answerId"),
            answer=_str(data, "answer"),
            answered_by_owner=_bool(data, "answeredByOwner"),
            updated_by=_str(data, "updatedBy"),
            updated_on=_str(data, "updatedOn"),
            time=_str(data, "time"),
            user_profile_logo_url=_str(data, "userProfileLogoUrl"),
            user_category=_str(data, "userCategory"),
            raw=data,
        )


@dataclass(frozen=True, slots=True)
class QnaQuestion:
    question_id: int | None
    question: str | None
    answered_by_owner: bool | None
    asked_by_owner: bool | None
    updated_by: str | None
    updated_on: str | None  # Mon DD, YYYY
    time: str | None  # hh:mm AM
    user_profile_logo_url: str | None
    user_category: str | None
    location_name: str | None
    no_of_answers: int | None
    answers: tuple[QnaAnswer, ...]
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "question")
        return cls(
            question_id=_int(data, "questionId"),
            question=_str(data, "question"),
            answered_by_owner=_bool(data, "answeredByOwner"),
            asked_by_owner=_bool(data, "askedByOwner"),
            updated_by=_str(data, "updatedBy"),
            updated_on=_str(data, "updatedOn"),
            time=_str(data, "time"),
            user_profile_logo_url=_str(data, "userProfileLogoUrl"),
            user_category=_str(data, "userCategory"),
            location_name=_str(data, "locationName"),
            no_of_answers=_int(data, "noOfAnswers"),
            answers=tuple(parse_list(QnaAnswer, data.get("answers"), "answers")),
            raw=data,
        )


@dataclass(frozen=True, slots=True)
class QnaPage:
    total_count: int | None
    questions: tuple[QnaQuestion, ...]
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "questions and answers")
        return cls(
            total_count=_int(data, "totalCount"),
            questions=tuple(
                parse_list(QnaQuestion, data.get("questionsAndAnswers"), "questionsAndAnswers")
            ),
            raw=data,
        )


@dataclass(frozen=True, slots=True)
class SiteStatus:
    site_id: int | None
    site_name: str | None
    status: str | None  # Synced, Submitted, In Progress, Action Required, Connect, Opted out
    errors: tuple[str, ...]
    url: str | None
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "site")
        return cls(
            site_id=_int(data, "siteId"),
            site_name=_str(data, "siteName"),
            status=_str(data, "status"),
            errors=_strings(data, "errors"),
            url=_str(data, "url"),
            raw=data,
        )


@dataclass(frozen=True, slots=True)
class LocationStatusReport:
    business_name: str | None
    activation_status: str | None  # active, demo, inactive
    last_updated: str | None
    location_status: str | None  # Published, Scan State, Disabled
    publish_listings: str | None
    errors: tuple[str, ...]
    total_sites: int | None
    synced_count: int | None
    submitted_count: int | None
    need_updates_count: int | None
    opted_out_count: int | None
    not_connected_count: int | None
    synced_percentage: str | None  # e.g. "68.18%"
    submitted_percentage: str | None
    need_updates_percentage: str | None
    opted_out_percentage: str | None
    not_connected_percentage: str | None
    sites: tuple[SiteStatus, ...]
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "location status report")
        return cls(
            business_name=_str(data, "businessName"),
            activation_status=_str(data, "activationStatus"),
            last_updated=_str(data, "lastUpdated"),
            location_status=_str(data, "locationStatus"),
            publish_listings=_str(data, "publishListings"),
            errors=_strings(data, "errors"),
            total_sites=_int(data, "totalSites"),
            synced_count=_int(data, "syncedCount"),
            submitted_count=_int(data, "submittedCount"),
            need_updates_count=_int(data, "needUpdatesCount"),
            opted_out_count=_int(data, "optedOutCount"),
            not_connected_count=_int(data, "notConnectedCount"),
            synced_percentage=_str(data, "syncedPercentage"),
            submitted_percentage=_str(data, "submittedPercentage"),
            need_updates_percentage=_str(data, "needUpdatesPercentage"),
            opted_out_percentage=_str(data, "optedOutPercentage"),
            not_connected_percentage=_str(data, "notConnectedPercentage"),
            sites=tuple(parse_list(SiteStatus, data.get("sites"), "sites")),
            raw=data,
        )


@dataclass(frozen=True, slots=True)
class Category:
    id: str | None
    name: str | None
    primary: bool | None  # returned only for the VENDOR source
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "category")
        return cls(
            id=_str(data, "id"),
            name=_str(data, "name"),
            primary=_bool(data, "primary"),
            raw=data,
        )


@dataclass(frozen=True, slots=True)
class AiSearchTheme:
    theme: str | None
    prompts: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AiSearchConfiguration:
    frequency: str | None
    quota: int | None
    billing_type: str | None
    themes: tuple[AiSearchTheme, ...]
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "AI-search configuration")
        themes = []
        for entry in _array(data.get("themes"), "themes"):
            item = _object(entry, "theme")
            themes.append(
                AiSearchTheme(theme=_str(item, "theme"), prompts=_strings(item, "prompts"))
            )
        return cls(
            frequency=_str(data, "frequency"),
            quota=_int(data, "quota"),
            billing_type=_str(data, "billingType"),
            themes=tuple(themes),
            raw=data,
        )


@dataclass(frozen=True, slots=True)
class ChildBusiness:
    id: int | None
    name: str | None
    alias: str | None
    type: str | None  # Business, Enterprise-Location, Enterprise-Product, Reseller, custom
    status: str | None  # demo, active, inactive
    created_on: str | None  # Mon DD, YYYY
    created_by: str | None
    child_count: int | None  # only for Reseller and Enterprise types
    phone: str | None  # only for Business entries
    address: dict[str, str] | None  # only for Business entries
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "child business")
        address = data.get("address")
        return cls(
            id=_int(data, "id"),
            name=_str(data, "name"),
            alias=_str(data, "alias"),
            type=_str(data, "type"),
            status=_str(data, "status"),
            created_on=_str(data, "createdOn"),
            created_by=_str(data, "createdBy"),
            child_count=_int(data, "childCount"),
            phone=_str(data, "phone"),
            address=_string_map(data, "address") if isinstance(address, Mapping) else None,
            raw=data,
        )


@dataclass(frozen=True, slots=True)
class Subscription:
    id: str | None
    message: str | None
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "subscription")
        return cls(id=_str(data, "id"), message=_str(data, "message"), raw=data)


@dataclass(frozen=True, slots=True)
class UnsubscribeResult:
    message: str | None
    raw: JsonObject = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, payload: Any) -> Self:
        data = _object(payload, "unsubscribe reply")
        return cls(message=_str(data, "message"), raw=data)
