"""OpenAPI 3.0 description of the sandbox, written by hand to match interface.md and
parameters.md (served at /sandbox/openapi.json)."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from sandbox.catalog import (
    CATEGORY_COUNTRIES,
    CATEGORY_SOURCES,
    CUSTOM_FIELD_TYPES,
    MEDIA_CATEGORIES,
    MEDIA_FORMATS,
    SUBSCRIPTION_EVENTS,
    SURVEY_QUESTION_TYPES,
)

Schema = dict[str, Any]


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def obj(
    properties: dict[str, Schema], required: tuple[str, ...] = (), closed: bool = False
) -> Schema:
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    if closed:
        schema["additionalProperties"] = False
    return schema


def array(items: Schema, **extra: Any) -> Schema:
    return {"type": "array", "items": items, **extra}


STRING: Schema = {"type": "string"}
INTEGER: Schema = {"type": "integer", "format": "int64"}
BOOLEAN: Schema = {"type": "boolean"}
NUMBER: Schema = {"type": "number"}
URL: Schema = {"type": "string", "format": "uri"}
US_DATE: Schema = {"type": "string", "pattern": r"^\d{1,2}/\d{1,2}/\d{4}$", "example": "05/31/2025"}
US_DATE_TIME: Schema = {
    "type": "string",
    "description": "MM/DD/YYYY HH:mm:ss (a bare MM/DD/YYYY is taken as the whole day)",
    "example": "05/01/2025 00:00:00",
}
PHONE: Schema = {
    "type": "string",
    "pattern": r"^\(\d{3}\) \d{3}-\d{4}$",
    "example": "(512) 555-0147",
}
PERCENT: Schema = {"type": "string", "pattern": r"^\d{1,3}\.\d{2}%$", "example": "68.18%"}
STRINGS = array(STRING)


def _strings(*names: str) -> dict[str, Schema]:
    return {name: STRING for name in names}


def _urls(*names: str) -> dict[str, Schema]:
    return {name: URL for name in names}


def _listing_schemas() -> dict[str, Schema]:
    hour = {
        "oneOf": [
            {"type": "integer", "minimum": 0, "maximum": 86400},
            {"type": "string", "enum": [""]},
        ]
    }
    working_hours = obj({"startHour": hour, "endHour": hour}, ("startHour", "endHour"), closed=True)
    day_entry = obj(
        {
            "day": {"type": "integer", "minimum": 0, "maximum": 6, "description": "0 is Monday"},
            "isOpen": {"type": "integer", "enum": [0, 1]},
            "workingHours": array(working_hours),
        },
        ("day", "isOpen"),
        closed=True,
    )
    labelled_days = {"type": "object", "additionalProperties": array(ref("DayEntry"))}
    special_hours = obj(
        {
            "specialDate": US_DATE,
            "startHour": hour,
            "endHour": hour,
            "isOpen": {"type": "integer", "enum": [0, 1]},
        },
        ("specialDate", "isOpen"),
        closed=True,
    )
    location = obj(
        {
            **_strings("address1", "address2", "subLocality", "city", "state"),
            "zip": {"oneOf": [{"type": "integer", "minimum": 0}, STRING]},
            "countryCode": {"type": "string", "pattern": "^[A-Za-z]{2}$"},
        },
        closed=True,
    )
    business_info = obj(
        {
            "name": {"type": "string", "minLength": 1},
            "phone": PHONE,
            "websiteUrl": URL,
            "emailId": {"type": "string", "format": "email"},
            "isAddressHidden": BOOLEAN,
            "isServiceAreaProvider": BOOLEAN,
            "mainBusinessDescription": {"type": "string", "description": "empty string clears it"},
            "serviceAreas": array(obj({"description": STRING}, ("description",), closed=True)),
            "location": location,
        },
        ("name",),
        closed=True,
    )
    additional_info = obj(
        {
            **_strings("establishedYear", "keywords", "services", "products", "impressum"),
            **_strings("additionalPaymentTypes", "localPhoneNumber", "tollFreePhoneNumber"),
            "timezone": {"type": "string", "description": "IANA zone name"},
            "languages": STRINGS,
            "paymentTypes": STRINGS,
            "moreHours": labelled_days,
            "mapsMoreHours": labelled_days,
            "wholeWeekOperating": {"type": "integer", "enum": [0, 1]},
            "hoursOfOperations": array(ref("DayEntry")),
            "specialHours": array(special_hours),
            "businessStatus": {
                "type": "string",
                "enum": ["Open", "Temporarily Closed", "Permanently Closed", "Opening Soon"],
            },
            "reopenDate": US_DATE,
            "openingSoonDate": US_DATE,
            "openedOnDate": US_DATE,
            **_urls("appointmentLink", "reservationLink", "menuLink", "orderAheadLink"),
            **_urls("iosAppURL", "androidAppURL"),
        },
        closed=True,
    )
    attribute = obj(
        {"attributeId": STRING, "attributeName": STRING, "value": BOOLEAN},
        ("attributeId", "value"),
        closed=True,
    )
    hotel_attribute = obj(
        {
            "attributeId": STRING,
            "attributeName": STRING,
            "value": {"oneOf": [NUMBER, STRING, BOOLEAN]},
        },
        ("attributeId", "value"),
        closed=True,
    )
    hotel_group = {"type": "object", "additionalProperties": hotel_attribute}
    hotel_attributes = obj(
        {
            group: obj({group: hotel_group}, (group,), closed=True)
            for group in ("business", "policies", "property", "services")
        },
        closed=True,
    )
    profile_listing = obj(
        {
            **_strings("profileStoreId", "profilePhoneNumber", "primaryCategoryProfile"),
            **_strings("profileDescription", "textMessageNumber"),
            **_urls("profileWebsiteUrl", "messagingBusinessLink", "foodDelivery", "foodTakeout"),
            "additionalCategories": array(STRING, maxItems=9, uniqueItems=True),
            "attributes": {"type": "object", "additionalProperties": array(attribute)},
            "hotelAttributes": hotel_attributes,
        },
        closed=True,
    )
    dotted = {"type": "string", "pattern": r"^[^.]+(\.[^.]+)+$", "example": "Food.Restaurant"}
    maps_listing = obj(
        {
            "primaryCategory": dotted,
            "mapsWebsiteUrl": URL,
            "additionalCategories": array(dotted),
            "mapsLocationAttributes": {
                "type": "object",
                "additionalProperties": array(
                    obj({"attributeId": STRING}, ("attributeId",), closed=True)
                ),
            },
            "mapsActionLinks": array(
                obj(
                    {"id": STRING, "deepLinkUrl": URL, "appStoreUrl": URL},
                    ("id", "deepLinkUrl"),
                    closed=True,
                )
            ),
            "phoneNumber": {
                "type": "string",
                "description": "international format",
                "example": "+1 512 555 0147",
            },
            **_strings("mapsBusinessName", "mapsBusinessDescription"),
        },
        closed=True,
    )
    payload = obj(
        {
            "businessInfo": business_info,
            "additionalInfo": additional_info,
            "media": obj(
                _urls("logoUrl", "coverImageUrl", "profileCover", "socialCover"), closed=True
            ),
            "optOut": obj(
                {
                    name: BOOLEAN
                    for name in (
                        "profileCoverOptOut",
                        "profileLogoOptOut",
                        "socialCoverOptOut",
                        "socialLogoOptOut",
                        "profileListingOptOut",
                        "businessProfileOptOut",
                    )
                },
                closed=True,
            ),
            "covidInfo": obj(
                {"postDescription": STRING, **_urls("covid19SupportLink", "virtualCareLink")},
                closed=True,
            ),
            "engineListing": obj(
                {
                    **_strings("primaryCategoryEngine", "engineDescription", "enginePhoneNumber"),
                    "engineCategories": STRINGS,
                },
                closed=True,
            ),
            "internalListing": obj(
                {
                    **_strings("description", "category", "displayCategory"),
                    "subCategories": STRINGS,
                },
                closed=True,
            ),
            "socialListing": obj(
                {**_strings("socialDescription", "socialPhoneNumber"), "categories": STRINGS},
                closed=True,
            ),
            "thirdPartyListing": obj(
                {"thirdPartyCategory": STRING, "thirdPartySubCategories": STRINGS}, closed=True
            ),
            "profileListing": profile_listing,
            "mapsListing": maps_listing,
            "socialProfileURLs": obj(
                _urls(
                    "engineProfileUrl",
                    "socialProfileUrl",
                    "shortMessageUrl",
                    "videoUrl",
                    "professionalUrl",
                    "photoUrl",
                    "pinUrl",
                    "bureauUrl",
                    "lendingUrl",
                ),
                closed=True,
            ),
            "healthcare": obj(
                {
                    "doctorCategories": array(
                        {
                            "type": "string",
                            "pattern": "^.+ > .+$",
                            "example": "Dentistry > Orthodontics",
                        }
                    ),
                    "isProvider": BOOLEAN,
                    **_strings(
                        "practiceName",
                        "firstName",
                        "middleName",
                        "surName",
                        "npi",
                        "credentials",
                        "university",
                        "hospitalAffiliations",
                        "insurancesAccepted",
                    ),
                },
                closed=True,
            ),
        },
        ("businessInfo",),
        closed=True,
    )
    return {"DayEntry": day_entry, "ListingPayload": payload}


def _answer_schema() -> Schema:
    properties = {
        "questionTitle": STRING,
        "questionType": {"type": "string", "enum": list(SURVEY_QUESTION_TYPES)},
        **{
            name: BOOLEAN
            for name in (
                "visible",
                "conditional",
                "shownToCustomer",
                "hidden",
                "showTime",
                "showDate",
            )
        },
        "maxValue": {"type": "integer"},
        "minValue": {"type": "integer"},
        "answer": {"type": "string", "description": "absent for label"},
        "childAnswers": array(ref("SurveyAnswer"), description="present for matrix types"),
    }
    return obj(properties, ("questionTitle", "questionType"))


def _ranking_entry(with_competitors: bool) -> Schema:
    properties: dict[str, Schema] = {
        **{
            name: {"type": "integer"}
            for name in (
                "positiveCount",
                "neutralCount",
                "negativeCount",
                "positivePercent",
                "neutralPercent",
                "negativePercent",
                "count",
            )
        },
        "name": STRING,
        "rating": NUMBER,
    }
    if with_competitors:
        properties["competitors"] = array(ref("RankingEntry"))
    return obj(properties, tuple(properties))


def _schemas() -> dict[str, Schema]:
    address = obj(
        _strings(
            "address1",
            "address2",
            "subLocality",
            "city",
            "state",
            "zip",
            "countryCode",
            "countryName",
        )
    )
    site_entry = obj(
        {
            "siteId": {"type": "integer"},
            "siteName": STRING,
            "status": {
                "type": "string",
                "enum": [
                    "Synced",
                    "Submitted",
                    "In Progress",
                    "Action Required",
                    "Connect",
                    "Opted out",
                ],
            },
            "errors": STRINGS,
            "url": STRING,
        },
        ("siteId", "siteName", "status"),
    )
    counts = (
        "totalSites",
        "syncedCount",
        "submittedCount",
        "needUpdatesCount",
        "optedOutCount",
        "notConnectedCount",
    )
    percentages = (
        "syncedPercentage",
        "submittedPercentage",
        "needUpdatesPercentage",
        "optedOutPercentage",
        "notConnectedPercentage",
    )
    status_report = obj(
        {
            "businessName": STRING,
            "activationStatus": {"type": "string", "enum": ["active", "demo", "inactive"]},
            "lastUpdated": {"type": "string", "description": "MM/DD/YYYY HH:mm:ss, UTC"},
            "locationStatus": {"type": "string", "enum": ["Published", "Scan State", "Disabled"]},
            "publishListings": STRING,
            "errors": STRINGS,
            **{name: {"type": "integer"} for name in counts},
            **{name: PERCENT for name in percentages},
            "sites": array(site_entry),
        },
        (
            "businessName",
            "activationStatus",
            "lastUpdated",
            "locationStatus",
            "publishListings",
            *counts,
            *percentages,
            "sites",
        ),
    )
    media_in = obj(
        {
            "url": URL,
            "mediaCategory": {"type": "string", "enum": list(MEDIA_CATEGORIES)},
            "description": STRING,
            "mediaFormat": {"type": "string", "enum": list(MEDIA_FORMATS)},
        },
        ("url", "mediaCategory", "mediaFormat"),
    )
    media_item = copy.deepcopy(media_in)
    media_item["properties"] = {"mediaId": STRING, **media_item["properties"]}
    media_item["required"] = ["mediaId", "url", "mediaCategory", "description", "mediaFormat"]
    survey_response = obj(
        {
            **{name: INTEGER for name in ("responseId", "surveyId", "customerId")},
            "requestDate": US_DATE,
            "responseDate": US_DATE,
            "completed": BOOLEAN,
            "ticketed": BOOLEAN,
            "questionCount": {"type": "integer"},
            **_strings("locale", "surveyName", "locationName", "customerName", "overallScore"),
            "ticketIds": array(INTEGER, description="only when includeTicketId=true"),
            "answers": array(ref("SurveyAnswer")),
            "customParam": {"type": "object", "additionalProperties": STRING},
            "extraParams": {"type": "object", "additionalProperties": STRING},
        },
        (
            "responseId",
            "surveyId",
            "customerId",
            "requestDate",
            "responseDate",
            "completed",
            "ticketed",
            "questionCount",
            "answers",
        ),
    )
    location_ref = obj(
        {
            "businessId": INTEGER,
            "name": STRING,
            "alias": STRING,
            "businessNumber": INTEGER,
            "phone": STRING,
            "address": STRING,
        },
        ("businessId", "name", "businessNumber", "phone"),
    )
    qna_answer = obj(
        {
            "answerId": INTEGER,
            **_strings(
                "answer", "updatedBy", "updatedOn", "time", "userProfileLogoUrl", "userCategory"
            ),
            "answeredByOwner": BOOLEAN,
        },
        ("answerId", "answer"),
    )
    qna_entry = obj(
        {
            "questionId": INTEGER,
            "answeredByOwner": BOOLEAN,
            "askedByOwner": BOOLEAN,
            "question": STRING,
            "updatedBy": STRING,
            "time": {"type": "string", "example": "09:05 AM"},
            "updatedOn": {"type": "string", "example": "Dec 04, 2013"},
            "userProfileLogoUrl": STRING,
            "userCategory": STRING,
            "locationName": STRING,
            "noOfAnswers": {"type": "integer"},
            "answers": array(qna_answer),
        },
        ("questionId", "question", "noOfAnswers", "answers"),
    )
    child = obj(
        {
            "id": INTEGER,
            "name": {"type": "string", "maxLength": 1000},
            "alias": STRING,
            "address": address,
            "phone": PHONE,
            "type": {
                "type": "string",
                "description": "Business, Enterprise-Location, "
                "Enterprise-Product, Reseller, or a custom hierarchy type",
            },
            "status": {"type": "string", "enum": ["demo", "active", "inactive"]},
            "createdOn": {"type": "string", "example": "Dec 04, 2013"},
            "createdBy": STRING,
            "childCount": {"type": "integer"},
        },
        ("id", "name", "type", "status", "createdOn"),
    )
    return {
        "Error": obj({"code": {"type": "integer"}, "message": STRING}, ("code", "message")),
        "Message": obj({"message": STRING}, ("message",)),
        **_listing_schemas(),
        "MediaUpload": obj({"media": array(media_in, minItems=1, maxItems=100)}, ("media",)),
        "MediaItem": media_item,
        "MediaList": obj({"media": array(ref("MediaItem"))}, ("media",)),
        "CustomFieldRequest": obj(
            {
                "fieldName": {"type": "string", "minLength": 1},
                "type": {"type": "string", "enum": list(CUSTOM_FIELD_TYPES)},
                "defaultValue": STRING,
                "dropDownOptions": STRINGS,
                "fieldDescription": STRING,
                "filterable": {
                    "oneOf": [{"type": "string", "enum": ["true", "false"]}, BOOLEAN],
                    "default": "false",
                },
            },
            ("fieldName", "type"),
        ),
        "CustomFieldResult": obj(
            {"id": INTEGER, "fieldName": STRING, "created": INTEGER, "updated": INTEGER},
            ("id", "fieldName", "created", "updated"),
        ),
        "SurveyAnswer": _answer_schema(),
        "SurveyResponse": survey_response,
        "SurveyResponsePage": obj(
            {
                "responseList": array(ref("SurveyResponse")),
                "totalResponses": {"type": "integer"},
                "pageNo": {"type": "integer"},
                "pageSize": {"type": "integer"},
                "hasNext": BOOLEAN,
            },
            ("responseList", "totalResponses", "pageNo", "pageSize", "hasNext"),
        ),
        "SurveyListRequest": obj({"startDate": US_DATE_TIME, "endDate": US_DATE_TIME}),
        "CompetitorMetricsRequest": obj(
            {
                "businessNumbers": array(INTEGER),
                "fromDate": US_DATE,
                "toDate": US_DATE,
                "sources": STRINGS,
                "brandIds": array({"oneOf": [INTEGER, STRING]}, maxItems=5),
                "competitorLocationIds": array({"oneOf": [INTEGER, STRING]}),
            }
        ),
        "CompetitorMetric": obj(
            {
                "businessLocations": array(location_ref),
                "competitorLocation": STRING,
                "competitorBrand": STRING,
                "source": STRING,
                "overallRating": NUMBER,
                "reviewCount": {"type": "integer"},
            },
            (
                "businessLocations",
                "competitorLocation",
                "competitorBrand",
                "source",
                "overallRating",
                "reviewCount",
            ),
        ),
        "CountByRatingRequest": obj(
            {
                "businessNumbers": array(INTEGER),
                "sourceAlias": STRINGS,
                "fromDate": US_DATE,
                "toDate": US_DATE,
            }
        ),
        "CountByRating": obj(
            {
                "reviewCount": {"type": "integer"},
                "countByRating": array(
                    obj(
                        {
                            "rating": {"type": "integer", "minimum": 0, "maximum": 5},
                            "count": {"type": "integer"},
                        },
                        ("rating", "count"),
                    )
                ),
            },
            ("reviewCount", "countByRating"),
        ),
        "RankingRequest": obj(
            {
                "startDate": US_DATE,
                "endDate": US_DATE,
                "reviewSites": array({"type": "string", "pattern": r"^\d+$"}),
            }
        ),
        "RankingEntry": _ranking_entry(with_competitors=False),
        "CompetitiveRanking": _ranking_entry(with_competitors=True),
        "HierarchyMapping": {"type": "object", "additionalProperties": STRING},
        "QnaPageRequest": obj(
            {
                "startIndex": {"type": "integer", "minimum": 0},
                "pageSize": {"type": "integer", "minimum": 1},
            }
        ),
        "QnaDeleteRequest": obj({"questionId": INTEGER, "answerId": INTEGER}),
        "QnaPage": obj(
            {"totalCount": {"type": "integer"}, "questionsAndAnswers": array(qna_entry)},
            ("totalCount", "questionsAndAnswers"),
        ),
        "LocationStatusReport": status_report,
        "Category": obj({"id": STRING, "name": STRING, "primary": BOOLEAN}, ("id", "name")),
        "AiSearchConfiguration": obj(
            {
                "frequency": STRING,
                "quota": {"type": "integer"},
                "billingType": STRING,
                "themes": array(obj({"theme": STRING, "prompts": STRINGS}, ("theme", "prompts"))),
            },
            ("frequency", "quota", "billingType", "themes"),
        ),
        "ChildBusiness": child,
        "SubscribeRequest": obj(
            {
                "webhookUrl": URL,
                "emails": array({"type": "string", "format": "email"}),
                "eventName": {"type": "string", "enum": list(SUBSCRIPTION_EVENTS)},
                "auth": {
                    "nullable": True,
                    **obj({"username": STRING, "password": STRING}, ("username", "password")),
                },
            },
            ("webhookUrl", "eventName"),
        ),
        "SubscribeReply": obj({"id": STRING, "message": STRING}, ("id", "message")),
    }


# ------------------------------------------------------------------------- operations
def _error(description: str) -> Schema:
    return {"description": description, "content": {"application/json": {"schema": ref("Error")}}}


def _json(schema: Schema, description: str = "OK") -> Schema:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


EMPTY_OK = {"description": "OK, empty body"}
COMMON_ERRORS = {
    "401": {"$ref": "#/components/responses/Unauthorized"},
    "429": {"$ref": "#/components/responses/RateLimited"},
    "500": {"$ref": "#/components/responses/ServerError"},
}


def _param(
    name: str, where: str, schema: Schema, required: bool = False, description: str = ""
) -> Schema:
    param = {"name": name, "in": where, "required": required, "schema": schema}
    if description:
        param["description"] = description
    return param


NUMBER_PARAM = {"type": "integer", "format": "int64", "minimum": 0}


def _path_number(name: str, description: str) -> Schema:
    return _param(name, "path", NUMBER_PARAM, True, description)


def _query_number(name: str, description: str) -> Schema:
    return _param(name, "query", NUMBER_PARAM, True, description)


ACCOUNT_HEADER = _param(
    "x-business-number",
    "header",
    NUMBER_PARAM,
    True,
    "Business number of the account (the reseller's or enterprise's)",
)


def _operation(
    operation_id: str,
    summary: str,
    *,
    parameters: list[Schema] = (),
    body: Schema | None = None,
    body_required: bool = True,
    ok: Schema,
    errors: dict[str, str],
) -> Schema:
    operation: Schema = {
        "operationId": operation_id,
        "summary": summary,
        "parameters": list(parameters),
        # An operation's own text for a common status wins: the provider files some errors
        # under 401 or 400 on some operations only.
        "responses": {
            "200": ok,
            **COMMON_ERRORS,
            **{status: _error(text) for status, text in errors.items()},
        },
    }
    if body is not None:
        operation["requestBody"] = {
            "required": body_required,
            "content": {"application/json": {"schema": body}},
        }
    return operation


BAD_INPUT = "Invalid input (code 400: malformed JSON, wrong type, missing field)"
UNKNOWN = "Unknown business for this key (code 1011, \"Business id is invalid\")"
UNKNOWN_UNDER_401 = (
    "API key missing (code 1167) or invalid (code 1161), or a business unknown to this key "
    "(code 1011): the provider files all three under 401 here"
)
WINDOW = "; code 1164 when the page window passes 100000"


def _paths() -> dict[str, Schema]:
    return {
        "/v1/listing/{businessNumber}/create": {
            "post": _operation(
                "createListing",
                "Create listing (fix, publish, sync)",
                parameters=[_path_number("businessNumber", "Location number")],
                body=ref("ListingPayload"),
                ok=EMPTY_OK,
                errors={
                    "400": "Invalid listing: code 400 (shape), 1043 (not a location), 2296, 2297, "
                    "2290, 2503, 2276, 2277, 2278, 2162, 2511, 2512, 2513, 2514, 2516, 2517, "
                    "2518, 2519, 2285, 2286, 6000, 6001, with the provider's messages",
                    "404": UNKNOWN,
                },
            )
        },
        "/v1/competitors/review/metrics": {
            "post": _operation(
                "competitorReviewMetrics",
                "Retrieve competitor review metrics",
                parameters=[
                    ACCOUNT_HEADER,
                    _param("startIndex", "query", {"type": "integer", "minimum": 0, "default": 0}),
                    _param("pageSize", "query", {"type": "integer", "minimum": 1, "default": 25}),
                    _param(
                        "sortOrder",
                        "query",
                        {"type": "integer", "enum": [0, 1], "default": 0},
                        description="By review date: 0 ascending, 1 descending",
                    ),
                ],
                body=ref("CompetitorMetricsRequest"),
                body_required=False,
                ok=_json(array(ref("CompetitorMetric"))),
                errors={
                    "400": BAD_INPUT + WINDOW + "; code 2466 for more than 5 brandIds",
                    "404": UNKNOWN,
                },
            )
        },
        "/v1/survey/ext/list/responses/{survey_id}": {
            "post": _operation(
                "listSurveyResponses",
                "List responses for a survey",
                parameters=[
                    _param("survey_id", "path", {"type": "string"}, True),
                    _query_number("businessNumber", "Business number of the enterprise"),
                    _param("page", "query", {"type": "integer", "minimum": 0, "default": 0}),
                    _param("size", "query", {"type": "integer", "minimum": 1, "default": 25}),
                    _param(
                        "sortby",
                        "query",
                        {
                            "type": "string",
                            "enum": ["date", "responseDate", "requestDate"],
                            "default": "date",
                        },
                    ),
                    _param(
                        "sorder",
                        "query",
                        {"type": "string", "enum": ["asc", "desc"], "default": "desc"},
                    ),
                    _param("includeTicketId", "query", {"type": "boolean", "default": False}),
                ],
                body=ref("SurveyListRequest"),
                body_required=False,
                ok=_json(ref("SurveyResponsePage")),
                errors={
                    "400": BAD_INPUT + WINDOW + "; code 1315 for an invalid survey",
                    "404": UNKNOWN,
                },
            )
        },
        "/v1/business/{businessNumber}/upload/media": {
            "post": _operation(
                "addMedia",
                "Add media",
                parameters=[_path_number("businessNumber", "Location number")],
                body=ref("MediaUpload"),
                ok=_json(ref("MediaList")),
                errors={
                    "400": BAD_INPUT + "; 2175 category, 2174 format, 2171 URL, 2181 non-MP4 "
                    "video, 1043 not a location",
                    "401": UNKNOWN_UNDER_401,
                },
            )
        },
        "/v1/business/{businessNumber}/media/get": {
            "get": _operation(
                "getMedia",
                "Get media",
                parameters=[_path_number("businessNumber", "Location number")],
                ok=_json(ref("MediaList")),
                errors={"400": BAD_INPUT + "; 1043 not a location", "401": UNKNOWN_UNDER_401},
            )
        },
        "/v1/business/public/custom-fields/create": {
            "post": _operation(
                "createCustomField",
                "Create custom field",
                parameters=[ACCOUNT_HEADER],
                body=ref("CustomFieldRequest"),
                ok=_json(ref("CustomFieldResult")),
                errors={
                    "400": BAD_INPUT + "; 5023 no body, 5031 unknown type, 5022 duplicate name, "
                    "5039 reserved name, 5040 too many",
                    "404": UNKNOWN,
                },
            )
        },
        "/v1/review/report/count-by-rating/{BusinessId}": {
            "post": _operation(
                "reviewCountByRating",
                "Review count and rating",
                parameters=[_path_number("BusinessId", "Id of the business")],
                body=ref("CountByRatingRequest"),
                body_required=False,
                ok=_json(ref("CountByRating")),
                errors={
                    "400": BAD_INPUT + "; 1167 when the API key is missing (the provider files "
                    "it under 400 here)",
                    "401": "API key invalid (code 1161)",
                    "404": UNKNOWN,
                },
            )
        },
        "/v2/competitive/ranking": {
            "post": _operation(
                "competitiveRanking",
                "Competitive ranking report",
                parameters=[_query_number("businessId", "Id of the business")],
                body=ref("RankingRequest"),
                body_required=False,
                ok=_json(ref("CompetitiveRanking")),
                errors={"400": BAD_INPUT, "404": UNKNOWN},
            )
        },
        "/v1/business/business-hierarchy/location/update-mapping/{businessId}": {
            "post": _operation(
                "updateHierarchy",
                "Update hierarchy (replaces the whole mapping)",
                parameters=[_path_number("businessId", "Location id")],
                body=ref("HierarchyMapping"),
                ok=EMPTY_OK,
                errors={"400": BAD_INPUT + "; 1043 not a location", "401": UNKNOWN_UNDER_401},
            )
        },
        "/v1/qna/get": {
            "post": _operation(
                "getQuestionsAndAnswers",
                "Get all questions and answers",
                parameters=[_query_number("businessId", "Id of the business")],
                body=ref("QnaPageRequest"),
                body_required=False,
                ok=_json(ref("QnaPage")),
                errors={
                    "400": "Page window over 100000 (code 1164)",
                    "401": "API key missing (1167) or invalid (1161), or invalid input (code "
                    "2466, \"Invalid input request\"): the provider files it under 401",
                    "404": UNKNOWN,
                },
            )
        },
        "/v1/qna/question/deleteAll": {
            "delete": _operation(
                "deleteAllQuestionsAndAnswers",
                "Delete all questions and answers",
                parameters=[_query_number("businessId", "Id of the business")],
                body=ref("QnaDeleteRequest"),
                body_required=False,
                ok=EMPTY_OK,
                errors={
                    "400": BAD_INPUT,
                    "401": "API key missing (1167) or invalid (1161); a questionId that is no "
                    "id (2482) or names no question of the business (2461): the provider files "
                    "them under 401",
                    "404": UNKNOWN,
                },
            )
        },
        "/v1/listing/status/location": {
            "get": _operation(
                "locationStatusReport",
                "Get location status report",
                parameters=[_query_number("businessNumber", "Location number")],
                ok=_json(ref("LocationStatusReport")),
                errors={
                    "400": BAD_INPUT + "; 1043 for a reseller or enterprise",
                    "404": "No business found with the given id (code 1175)",
                },
            )
        },
        "/v1/listing/{businessNumber}/category-list": {
            "get": _operation(
                "categoryList",
                "Get category list",
                parameters=[
                    _path_number("businessNumber", "Business number"),
                    _param(
                        "sourceName",
                        "query",
                        {"type": "string", "enum": list(CATEGORY_SOURCES)},
                        True,
                    ),
                    _param(
                        "countryCode",
                        "query",
                        {"type": "string", "enum": list(CATEGORY_COUNTRIES)},
                        True,
                    ),
                ],
                ok=_json(array(ref("Category"))),
                errors={
                    "400": "Code 400: Source name not found, Invalid Source Name, Country code "
                    "not found, Invalid country code",
                    "404": UNKNOWN,
                },
            )
        },
        "/v1/listing/searchAi/public/account-setup": {
            "get": _operation(
                "aiSearchConfiguration",
                "Get AI-search configuration",
                parameters=[ACCOUNT_HEADER],
                ok=_json(ref("AiSearchConfiguration")),
                errors={"400": BAD_INPUT, "404": UNKNOWN},
            )
        },
        "/v1/business/child/all": {
            "get": _operation(
                "childBusinesses",
                "Child businesses",
                parameters=[_query_number("pid", "Id of the reseller, sub-reseller or enterprise")],
                ok=_json(array(ref("ChildBusiness"))),
                errors={"400": BAD_INPUT, "404": UNKNOWN},
            )
        },
        "/v1/subscriptions/subscribe": {
            "post": _operation(
                "subscribe",
                "Subscribe a webhook to an event",
                parameters=[_query_number("businessId", "Account number")],
                body=ref("SubscribeRequest"),
                ok=_json(ref("SubscribeReply")),
                errors={"400": BAD_INPUT, "404": UNKNOWN},
            )
        },
        "/v1/subscriptions/unsubscribe/{subscriptionId}": {
            "get": _operation(
                "unsubscribe",
                "Unsubscribe",
                parameters=[
                    _param("subscriptionId", "path", {"type": "string"}, True),
                    _query_number("businessId", "Account number"),
                ],
                ok=_json(ref("Message")),
                errors={"400": BAD_INPUT, "404": UNKNOWN},
            )
        },
    }


@cache
def _document() -> dict[str, Any]:
    error = ref("Error")
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "Reputation and Listings Management Service (sandbox)",
            "version": "0.0.1",
            "description": "The embedded sandbox of the provider's interface. Every error body is "
            '{"code", "message"}. An unknown subscription id on unsubscribe answers HTTP 500 '
            "with code 1005; injected faults answer HTTP 500 with code 500.",
        },
        "servers": [{"url": "/sandbox"}],
        "security": [{"ApiKey": []}],
        "paths": _paths(),
        "components": {
            "securitySchemes": {"ApiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"}},
            "schemas": _schemas(),
            "responses": {
                "Unauthorized": {
                    "description": "API key missing (code 1167) or invalid (code 1161)",
                    "content": {"application/json": {"schema": error}},
                },
                "RateLimited": {
                    "description": "Rate limit exceeded (code 89)",
                    "headers": {
                        "Retry-After": {
                            "schema": {"type": "integer"},
                            "description": "Seconds (sandbox only)",
                        }
                    },
                    "content": {"application/json": {"schema": error}},
                },
                "ServerError": {
                    "description": "Server error (code 500; code 1005 on unsubscribe)",
                    "content": {"application/json": {"schema": error}},
                },
            },
        },
    }


def openapi_document(server_url: str | None = None) -> dict[str, Any]:
    document = copy.deepcopy(_document())
    if server_url:
        document["servers"] = [{"url": server_url}]
    return document
