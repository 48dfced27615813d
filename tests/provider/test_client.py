"""Each operation sends the method, path, query, headers and body of the spec, and parses."""

from __future__ import annotations

import datetime as dt

import pytest
import responses

from provider import ProviderClient, Transient
from provider.types import CustomFieldSpec, MediaUpload, WebhookAuth

from .helpers import API_KEY, sent, url


def test_common_headers_on_every_request(client, stub):
    stub.get(url("/v1/business/42/media/get"), json={"media": []})

    client.get_media(42)

    request = sent(stub)
    assert request["headers"]["x-api-key"] == API_KEY
    assert request["headers"]["Accept"] == "application/json"
    assert "api_key" not in request["query"]  # the old query parameter counts as missing


def test_create_listing_posts_payload_and_returns_none_on_empty_reply(client, stub):
    stub.post(url("/v1/listing/123456789012/create"), body="")
    payload = {"businessInfo": {"name": "Cafe"}, "additionalInfo": {"businessStatus": "Open"}}

    assert client.create_listing(123456789012, payload) is None

    request = sent(stub)
    assert request["method"] == "POST"
    assert request["json"] == payload
    assert request["headers"]["Content-Type"] == "application/json"


def test_competitor_review_metrics(client, stub):
    stub.post(
        url("/v1/competitors/review/metrics"),
        json=[
            {
                "businessLocations": [
                    {"businessId": 7, "name": "A", "businessNumber": 70, "phone": "(555) 1"}
                ],
                "competitorLocation": "Rival Downtown",
                "competitorBrand": "Rival",
                "source": "engine",
                "overallRating": 4.5,
                "reviewCount": 12,
            }
        ],
    )

    metrics = client.competitor_review_metrics(
        900,
        business_numbers=[70, 71],
        from_date=dt.date(2024, 1, 5),
        to_date=dt.datetime(2024, 2, 6, 13, 0),
        sources=["engine"],
        brand_ids=[1, 2],
        competitor_location_ids=[3],
        start_index=50,
        page_size=25,
        sort_order=1,
    )

    request = sent(stub)
    assert request["headers"]["x-business-number"] == "900"
    assert request["query"] == {"startIndex": "50", "pageSize": "25", "sortOrder": "1"}
    assert request["json"] == {
        "businessNumbers": [70, 71],
        "fromDate": "01/05/2024",
        "toDate": "02/06/2024",
        "sources": ["engine"],
        "brandIds": [1, 2],
        "competitorLocationIds": [3],
    }
    assert metrics[0].competitor_brand == "Rival"
    assert metrics[0].overall_rating == 4.5
    assert metrics[0].business_locations[0].business_number == 70
    assert metrics[0].raw["reviewCount"] == 12


def test_survey_responses(client, stub):
    stub.post(
        url("/v1/survey/ext/list/responses/31"),
        json={
            "responseList": [
                {
                    "responseId": 1,
                    "surveyId": 31,
                    "completed": True,
                    "ticketIds": [5],
                    "answers": [{"questionTitle": "Q", "questionType": "nps", "answer": "9"}],
                    "customParam": {"a": "b"},
                }
            ],
            "totalResponses": 1,
            "pageNo": 0,
            "pageSize": 10,
            "hasNext": False,
        },
    )

    page = client.survey_responses(
        31,
        business_number=900,
        page=0,
        size=10,
        sort_by="date",
        sort_order="desc",
        include_ticket_ids=True,
        start_date=dt.datetime(2024, 3, 1, 8, 30, 5),
        end_date=dt.date(2024, 3, 31),
    )

    request = sent(stub)
    assert request["query"] == {
        "businessNumber": "900",
        "page": "0",
        "size": "10",
        "sortby": "date",
        "sorder": "desc",
        "includeTicketId": "true",
    }
    assert request["json"] == {"startDate": "03/01/2024 08:30:05", "endDate": "03/31/2024 23:59:59"}
    assert page.has_next is False
    assert page.responses[0].ticket_ids == (5,)
    assert page.responses[0].answers[0]["answer"] == "9"
    assert page.responses[0].custom_param == {"a": "b"}


def test_add_media(client, stub):
    stub.post(
        url("/v1/business/55/upload/media"),
        json={"media": [{"mediaId": "m-1", "url": "https://x/p.jpg", "mediaFormat": "PHOTO"}]},
    )

    items = client.add_media(
        55,
        [
            MediaUpload("https://x/p.jpg", "TEAMS", "PHOTO", "Team"),
            {"url": "https://x/v.mp4", "mediaCategory": "ADDITIONAL", "mediaFormat": "VIDEO"},
        ],
    )

    assert sent(stub)["json"] == {
        "media": [
            {
                "url": "https://x/p.jpg",
                "mediaCategory": "TEAMS",
                "description": "Team",
                "mediaFormat": "PHOTO",
            },
            {"url": "https://x/v.mp4", "mediaCategory": "ADDITIONAL", "mediaFormat": "VIDEO"},
        ]
    }
    assert items[0].media_id == "m-1"
    assert items[0].raw["url"] == "https://x/p.jpg"


def test_get_media(client, stub):
    stub.get(url("/v1/business/55/media/get"), json={"media": [{"mediaId": "m-2"}]})

    items = client.get_media(55)

    assert sent(stub)["method"] == "GET"
    assert sent(stub)["json"] is None
    assert [item.media_id for item in items] == ["m-2"]


def test_create_custom_field(client, stub):
    stub.post(
        url("/v1/business/public/custom-fields/create"),
        json={"id": 9, "fieldName": "Tier", "created": 1700000000000, "updated": 1700000000001},
    )

    result = client.create_custom_field(
        900,
        CustomFieldSpec(
            "Tier",
            "DROPDOWN_MULTI",
            default_value="Gold",
            drop_down_options=["Gold", "Silver"],
            field_description="tier",
        ),
    )

    request = sent(stub)
    assert request["headers"]["x-business-number"] == "900"
    assert request["json"] == {
        "fieldName": "Tier",
        "type": "DROPDOWN_MULTI",
        "defaultValue": "Gold",
        "dropDownOptions": ["Gold", "Silver"],
        "fieldDescription": "tier",
        "filterable": "false",
    }
    assert (result.id, result.field_name, result.created) == (9, "Tier", 1700000000000)


def test_review_count_by_rating(client, stub):
    stub.post(
        url("/v1/review/report/count-by-rating/77"),
        json={
            "reviewCount": 3,
            "countByRating": [{"rating": 5, "count": 2}, {"rating": 1, "count": 1}],
        },
    )

    result = client.review_count_by_rating(
        77,
        business_numbers=[1, 2],
        source_aliases=["Engine"],
        from_date=dt.date(2024, 1, 1),
        to_date=dt.date(2024, 12, 31),
    )

    assert sent(stub)["json"] == {
        "businessNumbers": [1, 2],
        "sourceAlias": ["engine"],
        "fromDate": "01/01/2024",
        "toDate": "12/31/2024",
    }
    assert result.review_count == 3
    assert result.count_by_rating == {5: 2, 1: 1}


def test_competitive_ranking(client, stub):
    stub.post(
        url("/v2/competitive/ranking"),
        json={
            "name": "Acme",
            "count": 10,
            "rating": 4.2,
            "positiveCount": 6,
            "competitors": [{"name": "Rival", "count": 4}],
        },
    )

    result = client.competitive_ranking(
        77, start_date=dt.date(2024, 1, 1), end_date=dt.date(2024, 1, 31), review_sites=[2, "110"]
    )

    request = sent(stub)
    assert request["query"] == {"businessId": "77"}
    assert request["json"] == {
        "startDate": "01/01/2024",
        "endDate": "01/31/2024",
        "reviewSites": ["2", "110"],
    }
    assert result.name == "Acme"
    assert result.competitors[0].name == "Rival"
    assert result.competitors[0].competitors == ()


def test_update_hierarchy(client, stub):
    stub.post(url("/v1/business/business-hierarchy/location/update-mapping/77"), body="")

    assert client.update_hierarchy(77, {"Region": "West", "Area": "Bay"}) is None

    assert sent(stub)["json"] == {"Region": "West", "Area": "Bay"}


def test_get_qna(client, stub):
    stub.post(
        url("/v1/qna/get"),
        json={
            "totalCount": 1,
            "questionsAndAnswers": [
                {
                    "questionId": 3,
                    "question": "Open late?",
                    "noOfAnswers": 1,
                    "answers": [{"answerId": 8, "answer": "Yes", "answeredByOwner": True}],
                }
            ],
        },
    )

    page = client.get_qna(77, start_index=0, page_size=10)

    request = sent(stub)
    assert request["query"] == {"businessId": "77"}
    assert request["json"] == {"startIndex": 0, "pageSize": 10}
    assert page.total_count == 1
    assert page.questions[0].answers[0].answered_by_owner is True


def test_delete_all_qna(client, stub):
    stub.delete(url("/v1/qna/question/deleteAll"), body="")

    assert client.delete_all_qna(77) is None

    request = sent(stub)
    assert request["method"] == "DELETE"
    assert request["query"] == {"businessId": "77"}
    assert request["json"] is None


def test_location_status(client, stub):
    stub.get(
        url("/v1/listing/status/location"),
        json={
            "businessName": "Cafe",
            "locationStatus": "Published",
            "totalSites": 2,
            "syncedCount": 1,
            "syncedPercentage": "50.00%",
            "sites": [
                {"siteId": 2, "siteName": "Maps", "status": "Synced", "url": "https://m"},
                {
                    "siteId": 110,
                    "siteName": "Social",
                    "status": "Action Required",
                    "errors": ["Connect the page"],
                },
            ],
        },
    )

    report = client.location_status(123)

    assert sent(stub)["query"] == {"businessNumber": "123"}
    assert report.synced_percentage == "50.00%"
    assert report.sites[1].errors == ("Connect the page",)
    assert report.sites[1].url is None
    assert report.raw["totalSites"] == 2


def test_category_list(client, stub):
    stub.get(
        url("/v1/listing/123/category-list"),
        json=[{"id": "c1", "name": "Cafe", "primary": True}, {"id": "c2", "name": "Bakery"}],
    )

    categories = client.category_list(123, source_name="VENDOR", country_code="US")

    assert sent(stub)["query"] == {"sourceName": "VENDOR", "countryCode": "US"}
    assert [(c.id, c.primary) for c in categories] == [("c1", True), ("c2", None)]


def test_ai_search_configuration(client, stub):
    stub.get(
        url("/v1/listing/searchAi/public/account-setup"),
        json={
            "frequency": "Monthly",
            "quota": 5,
            "billingType": "CREDIT_SYSTEM",
            "themes": [{"theme": "Coffee", "prompts": ["best coffee"]}],
        },
    )

    config = client.ai_search_configuration(900)

    assert sent(stub)["headers"]["x-business-number"] == "900"
    assert config.quota == 5
    assert config.themes[0].prompts == ("best coffee",)


def test_child_businesses(client, stub):
    stub.get(
        url("/v1/business/child/all"),
        json=[
            {
                "id": 1,
                "name": "Shop",
                "type": "Business",
                "status": "active",
                "address": {"city": "Austin", "zip": 78701},
                "phone": "(555) 555-0100",
            },
            {"id": 2, "name": "Sub", "type": "Reseller", "childCount": 4},
        ],
    )

    children = client.child_businesses(900)

    assert sent(stub)["query"] == {"pid": "900"}
    assert children[0].address == {"city": "Austin", "zip": "78701"}
    assert children[1].child_count == 4
    assert children[1].address is None


def test_subscribe_and_unsubscribe(client, stub):
    stub.post(url("/v1/subscriptions/subscribe"), json={"id": "sub/1", "message": "ok"})
    stub.get(url("/v1/subscriptions/unsubscribe/sub%2F1"), json={"message": "Unsubscribed"})

    subscription = client.subscribe(
        900,
        webhook_url="https://portal/hook",
        emails=["ops@example.com"],
        event_name="LISTING_UPDATED",
        auth=WebhookAuth("hook", "pw"),
    )
    result = client.unsubscribe(subscription.id, account_number=900)

    subscribe_request = sent(stub, 0)
    assert subscribe_request["query"] == {"businessId": "900"}
    assert subscribe_request["json"] == {
        "webhookUrl": "https://portal/hook",
        "emails": ["ops@example.com"],
        "eventName": "LISTING_UPDATED",
        "auth": {"username": "hook", "password": "pw"},
    }
    assert "pw" not in repr(WebhookAuth("hook", "pw"))
    unsubscribe_request = sent(stub, 1)
    assert unsubscribe_request["path"] == "/v1/subscriptions/unsubscribe/sub%2F1"
    assert unsubscribe_request["query"] == {"businessId": "900"}
    assert result.message == "Unsubscribed"


def test_subscribe_without_auth_sends_null(client, stub):
    stub.post(url("/v1/subscriptions/subscribe"), json={"id": "s", "message": "ok"})

    client.subscribe(900, webhook_url="https://h", emails=[], event_name="SURVEY_COMPLETED")

    assert sent(stub)["json"]["auth"] is None


def test_dates_must_have_the_provider_shape(client, stub):
    with pytest.raises(ValueError):
        client.review_count_by_rating(1, from_date="2024-01-01", to_date=dt.date(2024, 1, 2))
    assert len(stub.calls) == 0


def test_path_ids_are_quoted(client, stub):
    stub.get(url("/v1/business/..%2Fadmin/media/get"), json={"media": []})

    client.get_media("../admin")

    assert sent(stub)["path"] == "/v1/business/..%2Fadmin/media/get"


def test_unexpected_reply_shape_is_transient(client, stub):
    stub.get(url("/v1/listing/status/location"), json=["not", "an", "object"])

    with pytest.raises(Transient, match="unexpected reply shape"):
        client.location_status(1)


def test_base_url_trailing_slash_and_custom_session(make_client, stub):
    import requests

    session = requests.Session()
    client = make_client(base_url="http://provider.test/sandbox/", session=session)
    stub.get(url("/v1/business/child/all"), json=[])

    assert client.child_businesses(1) == []
    client.close()  # does not close a session it did not create
    assert session.adapters


def test_client_requires_a_usable_key():
    with pytest.raises(ValueError):
        ProviderClient("http://provider.test", "")
    with pytest.raises(ValueError) as excinfo:
        ProviderClient("http://provider.test", API_KEY + "\n")
    assert API_KEY not in str(excinfo.value)


def test_client_with_limiter_needs_a_non_secret_limiter_key():
    from provider import NullRateLimiter

    with pytest.raises(ValueError):
        ProviderClient("http://provider.test", API_KEY, rate_limiter=NullRateLimiter())
    with pytest.raises(ValueError) as excinfo:
        ProviderClient(
            "http://provider.test",
            API_KEY,
            rate_limiter=NullRateLimiter(),
            rate_limit_key=API_KEY,
            rate_limit=(10, 1),
        )
    assert API_KEY not in str(excinfo.value)


def test_responses_library_is_the_stub(stub):
    # Guard: a request to an unregistered URL must fail loudly rather than reach the network.
    client = ProviderClient("http://provider.test", API_KEY, max_retries=0)
    with pytest.raises(Transient):
        client.get_media(1)
    assert isinstance(stub, responses.RequestsMock)
