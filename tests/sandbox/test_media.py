"""Add media (operation 4) and get media (operation 5)."""

from __future__ import annotations

from sandbox.models import MediaItem
from tests.sandbox.conftest import LIVE_DB, assert_error

pytestmark = LIVE_DB

PHOTO = {
    "url": "https://cdn.example.com/team.jpg",
    "mediaCategory": "TEAMS",
    "description": "Our team",
    "mediaFormat": "PHOTO",
}
VIDEO = {**PHOTO, "url": "https://cdn.example.com/tour.mp4", "mediaFormat": "VIDEO"}


def upload(api, number, items):
    return api.post(f"/v1/business/{number}/upload/media", json={"media": items})


def test_added_media_is_returned_with_ids_and_listed(api, location):
    before = api.get(f"/v1/business/{location.number}/media/get").json()["media"]
    response = upload(api, location.number, [PHOTO, VIDEO])
    assert response.status_code == 200
    added = response.json()["media"]
    assert [item["url"] for item in added] == [PHOTO["url"], VIDEO["url"]]
    for item in added:
        assert isinstance(item["mediaId"], str) and item["mediaId"]
        assert set(item) == {"mediaId", "url", "mediaCategory", "description", "mediaFormat"}
    listed = api.get(f"/v1/business/{location.number}/media/get").json()["media"]
    assert listed == before + added


def test_validation_codes_and_nothing_added(api, location):
    count = MediaItem.objects.filter(location=location).count()
    # The provider's messages, word for word.
    category = "Provided media category is not supported"
    mov = "https://cdn.example.com/tour.mov"
    for item, code, message in [
        ({**PHOTO, "mediaCategory": "LOGO"}, 2175, category),
        ({**PHOTO, "mediaCategory": None}, 2175, category),
        ({**PHOTO, "mediaFormat": "GIF"}, 2174, "Unsupported media format"),
        ({**PHOTO, "url": "not a url"}, 2171, "URL is invalid"),
        ({**PHOTO, "url": "ftp://cdn.example.com/a.jpg"}, 2171, "URL is invalid"),
        ({**VIDEO, "url": mov}, 2181, "Supported video format is MP4."),
        # The category is checked before the format and the URL.
        ({"url": "bad", "mediaCategory": "LOGO", "mediaFormat": "GIF"}, 2175, category),
    ]:
        response = upload(api, location.number, [PHOTO, item])
        assert response.status_code == 400, (item, code)
        assert response.json() == {"code": code, "message": message}
    assert MediaItem.objects.filter(location=location).count() == count


def test_bad_input_is_400(api, location):
    for body in [
        None,
        [],
        {"media": "x"},
        {"media": []},
        {"media": [5]},
        {"media": [{**PHOTO, "url": 5}]},
    ]:
        response = api.post(f"/v1/business/{location.number}/upload/media", json=body)
        assert_error(response, 400, 400)


def test_unknown_and_non_location_numbers(api, seeded):
    # The provider files an unknown business under 401 on both media operations.
    assert assert_error(upload(api, 42, [PHOTO]), 401, 1011)["message"] == "Business id is invalid"
    assert_error(api.get("/v1/business/42/media/get"), 401, 1011)
    assert_error(upload(api, seeded["enterprise_ids"][0], [PHOTO]), 400, 1043)
    assert_error(api.get(f"/v1/business/{seeded['account_number']}/media/get"), 400, 1043)
