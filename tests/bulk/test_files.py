"""Listings out and in as files: export to CSV and XLSX, import the same file (nothing changes)
or an edited one (exactly the edited cells change), rows with errors shown on their row and
nothing sent, columns named in the file's own words, bad files, access, the pages, the query
count of an export, and a file applied and sent to the sandbox over HTTP."""

from __future__ import annotations

import copy
import csv
import io
import json
import os
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import AuditEvent, Business, Role
from bulk import files
from bulk.files import listing_export
from bulk.models import BulkChange, BulkChangeItem, ListingImport
from listings.models import ListingVersion
from outbox.models import OutboxEntry
from portal.tenancy import tenant_scope
from tests.factories import BusinessFactory, ResellerFactory

pytestmark = pytest.mark.django_db

DOC = Path(__file__).resolve().parents[2] / "docs" / "listing-files.md"
HOURS = "additionalInfo.hoursOfOperations"
WEBSITE = "businessInfo.websiteUrl"
DESCRIPTION = "businessInfo.mainBusinessDescription"
CITY = "businessInfo.location.city"


def day(number, start, end):
    return {"day": number, "isOpen": 1,
            "workingHours": [{"startHour": start * 3600, "endHour": end * 3600}]}


CLOSED_SUNDAY = {"day": 6, "isOpen": 0, "workingHours": [{"startHour": "", "endHour": ""}]}


def rich_listing(name):
    """A listing with a value in every kind of column, some of them in shapes a spreadsheet
    likes to change: a postal code as a number, a phone that starts with +, a description that
    starts with =, lists, hours past midnight, JSON parts."""
    return {
        "businessInfo": {"name": name, "phone": "(512) 555-0100",
                         "websiteUrl": "https://alpha.example.com",
                         "mainBusinessDescription": "=Fresh bread; every morning, “since 1990”",
                         "isServiceAreaProvider": True, "isAddressHidden": False,
                         "serviceAreas": [{"description": "Austin"}, {"description": "Round Rock"}],
                         "location": {"address1": "1 Main St", "city": "Austin", "state": "TX",
                                      "zip": 78701, "countryCode": "US"}},
        "additionalInfo": {"businessStatus": "Open", "wholeWeekOperating": 0,
                           "hoursOfOperations": [day(0, 9, 17),
                                                 {"day": 4, "isOpen": 1, "workingHours": [
                                                     {"startHour": 64800, "endHour": 86400}]},
                                                 {"day": 5, "isOpen": 1, "workingHours": [
                                                     {"startHour": 0, "endHour": 7200}]},
                                                 CLOSED_SUNDAY],
                           "specialHours": [{"specialDate": "12/24/2030", "isOpen": 1,
                                             "startHour": 32400, "endHour": 46800},
                                            {"specialDate": "12/25/2030", "isOpen": 0,
                                             "startHour": "", "endHour": ""}],
                           "moreHours": {"Delivery": [day(0, 11, 22)]},
                           "paymentTypes": ["Cash", "Credit Card"],
                           "languages": ["English", "Spanish; Mexican"],
                           "keywords": "bread, cakes"},
        "profileListing": {"primaryCategoryProfile": "Bakery",
                           "additionalCategories": ["Cafe"],
                           "attributes": {"Amenities": [{"attributeId": "wifi",
                                                         "attributeName": "Wi-Fi",
                                                         "value": True}]}},
        "mapsListing": {"phoneNumber": "+1 512 555 0100",
                        "mapsActionLinks": [{"id": "order",
                                             "deepLinkUrl": "https://alpha.example.com/order"}]},
        "optOut": {"profileCoverOptOut": True},
    }


def plain_listing(name):
    return {"businessInfo": {"name": name, "phone": "(512) 555-0101",
                             "location": {"address1": "2 Oak St", "city": "Austin",
                                          "state": "TX", "zip": "78702", "countryCode": "US"}},
            "additionalInfo": {"hoursOfOperations": [day(0, 9, 17)]}}


def accept(business, document, number=1):
    return ListingVersion.unscoped.create(reseller=business.reseller, business=business,
                                          number=number, document=document,
                                          accepted_at=timezone.now())


@pytest.fixture
def brand():
    """Two enterprises: North with Alpha (a rich listing), Bravo (a plain one) and Charlie
    (no accepted version: its business row tells its listing); South with Delta."""
    reseller = ResellerFactory()
    north = BusinessFactory(reseller=reseller, remote_id=500, name="North brand",
                            type=Business.Type.ENTERPRISE_LOCATION, tree_path="/500/")
    south = BusinessFactory(reseller=reseller, remote_id=600, name="South brand",
                            type=Business.Type.ENTERPRISE_LOCATION, tree_path="/600/")
    rows = {}
    for number, name, parent in ((501, "Alpha", north), (502, "Bravo", north),
                                 (503, "Charlie", north), (601, "Delta", south)):
        rows[number] = BusinessFactory(reseller=reseller, remote_id=number, name=name,
                                       parent=parent, depth=1, city="Austin", state="TX",
                                       zip="78703", address1="3 Elm St", phone="(512) 555-0103",
                                       tree_path=f"{parent.tree_path}{number}/")
    accept(rows[501], rich_listing("Alpha"))
    accept(rows[502], plain_listing("Bravo (old)"), number=1)
    accept(rows[502], plain_listing("Bravo"), number=2)
    accept(rows[601], plain_listing("Delta"))
    return reseller, north, south, rows


def url(reseller, name, *args):
    return reverse(name, args=[reseller.slug, *args])


def export(client, reseller, fmt="csv", **filters):
    answer = client.get(url(reseller, "api_listing_export"), {"format": fmt, **filters})
    assert answer.status_code == 200, answer.content[:300]
    return answer.content


def upload(client, reseller, content, name="listings.csv", **data):
    return client.post(url(reseller, "api_listing_import_list"),
                       {"file": SimpleUploadedFile(name, content), **data}, format="multipart")


def preview_rows(client, reseller, import_id):
    answer = client.get(url(reseller, "api_listing_import_detail", import_id), {"limit": 500})
    assert answer.status_code == 200, answer.json()
    return {row["business_number"]: row for row in answer.json()["rows"]["results"]}


# -- editing a file as a person does in a spreadsheet -------------------------------------------


def read_csv(content: bytes) -> list[list[str]]:
    assert content.startswith("\ufeff".encode())  # Excel reads it as UTF-8
    return list(csv.reader(io.StringIO(content.decode("utf-8-sig"), newline="")))


def write_csv(rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return out.getvalue().encode("utf-8-sig")


def read_xlsx(content: bytes) -> list[list[str]]:
    from openpyxl import load_workbook

    sheet = load_workbook(io.BytesIO(content)).worksheets[0]
    return [["" if value is None else value for value in row]
            for row in sheet.iter_rows(values_only=True)]


def write_xlsx(rows: list[list[str]]) -> bytes:
    from openpyxl import Workbook

    workbook = Workbook()
    sheet = workbook.active
    for row in rows:
        sheet.append(row)
    for cells in sheet.iter_rows():
        for cell in cells:
            if isinstance(cell.value, str):
                cell.data_type = "s"
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


READERS = {"csv": (read_csv, write_csv), "xlsx": (read_xlsx, write_xlsx)}


def edit(content: bytes, fmt: str, changes: dict[tuple[int, str], str],
         extra_rows: list[list[str]] = ()) -> bytes:
    """The file with the cells {(business number, column): text} changed."""
    read, write = READERS[fmt]
    rows = read(content)
    head = rows[0]
    for row in rows[1:]:
        for (number, column), text in changes.items():
            if str(row[0]) == str(number):
                row[head.index(column)] = text
    return write([*rows, *[list(row) for row in extra_rows]])


# -- round trips ---------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_export_then_import_of_the_same_file_changes_nothing(api_member, brand, fmt):
    reseller, *_ = brand
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    content = export(client, reseller, fmt)
    rows = READERS[fmt][0](content)
    assert rows[0][:3] == ["business_number", "business_name", "businessInfo.name"]
    assert [str(row[0]) for row in rows[1:]] == ["501", "502", "503", "601"]
    # Each kind of cell in its readable format.
    alpha = dict(zip(rows[0], rows[1], strict=True))
    assert alpha[HOURS] == "Mon 09:00-17:00; Fri 18:00-02:00; Sat closed; Sun closed"
    assert alpha["additionalInfo.specialHours"] == "12/24/2030 09:00-13:00; 12/25/2030 closed"
    assert alpha["additionalInfo.moreHours"] == "Delivery: Mon 11:00-22:00"
    assert alpha["additionalInfo.paymentTypes"] == "Cash; Credit Card"
    assert alpha["additionalInfo.languages"] == '["English", "Spanish; Mexican"]'
    assert alpha["businessInfo.serviceAreas"] == "Austin; Round Rock"
    assert alpha["businessInfo.isServiceAreaProvider"] == "yes"
    assert alpha["businessInfo.isAddressHidden"] == "no"
    assert alpha["businessInfo.location.zip"] == "78701"
    # JSON in the cell (PostgreSQL keeps an object's keys in an order of its own).
    attributes = json.loads(alpha["profileListing.attributes"])
    assert attributes["Amenities"][0]["attributeId"] == "wifi"
    # A cell a spreadsheet would run as a formula is quoted in a CSV only.
    quoted = "'" if fmt == "csv" else ""
    assert alpha[DESCRIPTION] == quoted + "=Fresh bread; every morning, “since 1990”"
    assert alpha["mapsListing.phoneNumber"] == quoted + "+1 512 555 0100"
    # Charlie has no accepted version: its business row tells its listing.
    charlie = dict(zip(rows[0], rows[3], strict=True))
    assert charlie["businessInfo.name"] == "Charlie" and charlie[CITY] == "Austin"

    answer = upload(client, reseller, content, name=f"listings.{fmt}")
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert body["format"] == fmt and body["state"] == "preview"
    assert body["counts"] == {"rows": 4, "will_change": 0, "unchanged": 4, "invalid": 0,
                              "unknown_business": 0}
    assert all(row["diff"] == [] and row["errors"] == [] for row in body["rows"]["results"])
    applied = client.post(url(reseller, "api_listing_import_apply", body["id"]), {},
                          format="json")
    assert applied.status_code == 409 and "nothing to apply" in applied.json()["message"]
    assert not BulkChange.unscoped.filter(reseller=reseller).exists()
    assert not OutboxEntry.unscoped.filter(reseller=reseller).exists()


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_an_edited_file_changes_exactly_the_edited_cells(api_member, brand, fmt):
    reseller, *_ = brand
    client, membership = api_member(Role.MANAGER, reseller=reseller)
    content = edit(export(client, reseller, fmt), fmt, {
        (501, DESCRIPTION): "New description",
        (501, "additionalInfo.paymentTypes"): "Cash; Credit Card; Contactless",
        (502, HOURS): "Mon 08:00-18:00; Tue 08:00-12:00, 13:00-18:00",
        (503, CITY): "Round Rock",
        (601, WEBSITE): "(clear)",  # Delta has no website: clearing it changes nothing
    })
    answer = upload(client, reseller, content, name=f"edited.{fmt}")
    assert answer.status_code == 201, answer.json()
    assert answer.json()["counts"] == {"rows": 4, "will_change": 3, "unchanged": 1,
                                       "invalid": 0, "unknown_business": 0}
    found = preview_rows(client, reseller, answer.json()["id"])
    assert [(c["path"], c["old"], c["new"]) for c in found[501]["diff"]] == [
        (DESCRIPTION, "=Fresh bread; every morning, “since 1990”", "New description"),
        ("additionalInfo.paymentTypes", "Cash; Credit Card", "Cash; Credit Card; Contactless")]
    assert found[502]["diff"] == [{
        "path": HOURS, "label": "Opening hours", "old": "Monday: 09:00–17:00",
        "new": "Monday: 08:00–18:00; Tuesday: 08:00–12:00, 13:00–18:00"}]
    assert [(c["path"], c["old"], c["new"]) for c in found[503]["diff"]] == [
        (CITY, "Austin", "Round Rock")]
    assert found[601]["state"] == "unchanged" and found[601]["diff"] == []
    # Nothing is sent, and no bulk change exists before the file is applied.
    assert not BulkChange.unscoped.filter(reseller=reseller).exists()

    applied = client.post(url(reseller, "api_listing_import_apply", answer.json()["id"]),
                          {"waves": [1, 2]}, format="json")
    assert applied.status_code == 201, applied.json()
    change = applied.json()
    assert change["state"] == "dry_run_done" and change["source"] == "file"
    assert change["counts"] == {"selected": 3, "will_change": 3, "unchanged": 0, "invalid": 0}
    assert change["waves"] == [1, 2]
    with tenant_scope(reseller):
        items = {item.business_number: item for item in BulkChangeItem.objects.all()}
        assert items[501].own_set == {"businessInfo": {DESCRIPTION.split(".")[1]:
                                                       "New description"},
                                      "additionalInfo": {"paymentTypes": [
                                          "Cash", "Credit Card", "Contactless"]}}
        assert items[502].own_set == {"additionalInfo": {"hoursOfOperations": [
            day(0, 8, 18), {"day": 1, "isOpen": 1, "workingHours": [
                {"startHour": 8 * 3600, "endHour": 12 * 3600},
                {"startHour": 13 * 3600, "endHour": 18 * 3600}]}]}}
        # The address is sent whole: the provider replaces it as a whole (and Charlie's first
        # version sends its whole listing).
        assert items[503].payload == {"businessInfo": {
            "name": "Charlie", "phone": "(512) 555-0103", "location": {
            "address1": "3 Elm St", "city": "Round Rock", "state": "TX", "zip": "78703",
            "countryCode": "US"}}}
        assert items[502].base_number == 2
    assert not OutboxEntry.unscoped.filter(reseller=reseller).exists()
    # Applied once.
    again = client.post(url(reseller, "api_listing_import_apply", answer.json()["id"]), {},
                        format="json")
    assert again.status_code == 409 and "applied already" in again.json()["message"]
    detail = client.get(url(reseller, "api_listing_import_detail", answer.json()["id"])).json()
    assert detail["state"] == "applied" and detail["bulk_change"] == change["id"]
    actions = list(AuditEvent.unscoped.filter(reseller=reseller, actor=membership.user)
                   .exclude(action__startswith="api_token.").order_by("pk")
                   .values_list("action", "actor"))
    assert actions == [("listings.exported", membership.user_id),
                       ("listing_import.created", membership.user_id),
                       ("bulk_change.dry_run", membership.user_id),
                       ("listing_import.applied", membership.user_id)]


def test_a_file_with_errors_shows_each_error_on_its_row_and_sends_nothing(api_member, brand):
    reseller, *_ = brand
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    content = edit(export(client, reseller), "csv", {
        (501, HOURS): "Mon 9-5",
        (502, WEBSITE): "not a website",
        (503, "businessInfo.isAddressHidden"): "perhaps",
        (601, DESCRIPTION): "Fine change",
    }, extra_rows=[["999999", "Nobody"], ["abc", "Typo"], ["502", "Bravo again"]])
    answer = upload(client, reseller, content)
    assert answer.status_code == 201, answer.json()
    assert answer.json()["counts"] == {"rows": 7, "will_change": 1, "unchanged": 0,
                                       "invalid": 5, "unknown_business": 1}
    rows = {row["row"]: row for row in answer.json()["rows"]["results"]}
    assert rows[2]["state"] == "invalid" and rows[2]["errors"] == [{
        "column": HOURS, "field": HOURS, "message": "Monday: “9-5” is not a range of hours: "
        "write it as 09:00-17:00 (24-hour clock), several separated by commas, or closed."}]
    # The listing editor's own check, on the column it belongs to.
    assert rows[3]["errors"] == [{"column": WEBSITE, "field": WEBSITE, "message":
                                  "Enter a full http:// or https:// address with a real host "
                                  "name."}]
    assert rows[4]["errors"] == [{"column": "businessInfo.isAddressHidden",
                                  "field": "businessInfo.isAddressHidden",
                                  "message": "Write yes or no."}]
    assert rows[5]["state"] == "will_change"
    assert rows[6]["state"] == "unknown_business" and rows[6]["errors"] == [{
        "column": "business_number", "field": "",
        "message": "No business in your part of the account has this number."}]
    assert rows[7]["errors"][0]["message"] == "“abc” is not a business number."
    assert rows[8]["errors"][0]["message"].startswith("Row 3 is about the same location")

    zero = client.post(url(reseller, "api_listing_import_apply", answer.json()["id"]),
                       {"waves": [0], "skip_invalid": True}, format="json")
    assert zero.status_code == 400 and list(zero.json()["fields"]) == ["waves[0]"]
    refused = client.post(url(reseller, "api_listing_import_apply", answer.json()["id"]), {},
                          format="json")
    assert refused.status_code == 400
    assert refused.json()["fields"]["skip_invalid"] == [
        "Rows 2, 3, 4, 6, 7, 8 have errors: fix them and import the file again, or apply the "
        "other rows only with skip_invalid: true."]
    assert not BulkChange.unscoped.filter(reseller=reseller).exists()
    assert not OutboxEntry.unscoped.filter(reseller=reseller).exists()

    only_valid = client.post(url(reseller, "api_listing_import_apply", answer.json()["id"]),
                             {"skip_invalid": True}, format="json")
    assert only_valid.status_code == 201, only_valid.json()
    assert only_valid.json()["selection"] == {"numbers": [601]}
    assert only_valid.json()["counts"]["will_change"] == 1


def test_columns_named_in_the_files_own_words_are_mapped(api_member, brand):
    reseller, *_ = brand
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    content = write_csv([["Store", "Business › Website", "Notes", "Web shop"],
                         ["502", "https://bravo.example.com", "call first", "x"]])
    unknown = upload(client, reseller, content)
    assert unknown.status_code == 400
    assert set(unknown.json()["fields"]) == {"columns.Store", "columns.Notes", "columns.Web shop"}
    assert not ListingImport.unscoped.filter(reseller=reseller).exists()

    wrong = upload(client, reseller, content,
                   mapping='{"Store": "business_number", "Notes": "notes", "Web shop": ""}')
    assert wrong.status_code == 400 and set(wrong.json()["fields"]) == {"mapping.Notes"}
    twice = upload(client, reseller, content, mapping='{"Store": "business_number", '
                                                      '"Notes": "", "Web shop": "' + WEBSITE
                                                      + '"}')
    assert twice.status_code == 400 and "columns.Web shop" in twice.json()["fields"]

    mapped = upload(client, reseller, content,
                    mapping='{"Store": "business_number", "Notes": "", "Web shop": ""}')
    assert mapped.status_code == 201, mapped.json()
    assert mapped.json()["mapping"] == {"Store": "business_number",
                                        "Business › Website": WEBSITE, "Notes": "",
                                        "Web shop": ""}
    row = mapped.json()["rows"]["results"][0]
    assert row["state"] == "will_change"
    assert [c["path"] for c in row["diff"]] == [WEBSITE]
    no_number = upload(client, reseller, write_csv([[WEBSITE], ["https://x.example.com"]]))
    assert no_number.status_code == 400 and "columns" in no_number.json()["fields"]


def test_bad_files_and_filters_are_named(api_member, brand, settings, monkeypatch):
    reseller, *_ = brand
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    good = export(client, reseller)
    for content in (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", b"PK\x03\x04not a workbook",
                    b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1old excel", b"", b"   \n"):
        answer = upload(client, reseller, content)
        assert answer.status_code == 400, (content, answer.json())
        assert list(answer.json()["fields"]) == ["file"], answer.json()
    assert "older Excel file" in upload(client, reseller, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
                                        b"x").json()["message"]
    # A CSV named .xlsx is read as the CSV it is.
    assert upload(client, reseller, good, name="listings.xlsx").json()["format"] == "csv"
    settings.LISTING_IMPORT_MAX_BYTES = len(good) - 1
    too_big = upload(client, reseller, good)
    assert too_big.status_code == 400 and "at most" in too_big.json()["fields"]["file"][0]
    settings.LISTING_IMPORT_MAX_BYTES = 5 * 1024 * 1024
    monkeypatch.setattr(files, "MAX_LOCATIONS", 3)
    too_long = upload(client, reseller, good)
    assert too_long.status_code == 400 and "4 rows" in too_long.json()["fields"]["file"][0]

    base = url(reseller, "api_listing_export")
    for params, field in (({"format": "pdf"}, "format"), ({"city": "Nowhere"}, "city"),
                          ({"colour": "red"}, "colour"), ({"removed": "only"}, "removed"),
                          ({"type": "Enterprise-Location"}, "type")):
        answer = client.get(base, params)
        assert answer.status_code == 400, (params, answer.status_code)
        assert field in answer.json()["fields"], (params, answer.json())


def test_the_export_follows_the_businesses_lists_filters(api_member, brand):
    reseller, *_ = brand
    client, _ = api_member(Role.VIEWER, reseller=reseller)
    rows = read_csv(export(client, reseller, within=600))
    assert [row[0] for row in rows[1:]] == ["601"]
    rows = read_csv(export(client, reseller, q="bravo"))
    assert [row[:2] for row in rows[1:]] == [["502", "Bravo"]]


def test_a_limited_member_works_within_their_subtree(api_member, brand):
    reseller, north, _, _ = brand
    owner, _ = api_member(Role.OWNER, reseller=reseller)
    whole = upload(owner, reseller, export(owner, reseller)).json()["id"]
    client, _ = api_member(Role.MANAGER, reseller=reseller, limited_to=north)
    content = export(client, reseller)
    assert [row[0] for row in read_csv(content)[1:]] == ["501", "502", "503"]
    content = edit(content, "csv", {(501, DESCRIPTION): "Inside"},
                   extra_rows=[["601", "Delta"]])
    answer = upload(client, reseller, content)
    assert answer.status_code == 201
    rows = preview_rows(client, reseller, answer.json()["id"])
    # A location outside the subtree is as unknown as one that does not exist.
    assert rows[601]["state"] == "unknown_business" and rows[601]["business_name"] == "Delta"
    assert rows[501]["state"] == "will_change"
    listed = client.get(url(reseller, "api_listing_import_list")).json()
    assert [item["id"] for item in listed["results"]] == [answer.json()["id"]]
    assert client.get(url(reseller, "api_listing_import_detail", whole)).status_code == 404
    assert client.post(url(reseller, "api_listing_import_apply", whole), {},
                       format="json").status_code == 404
    assert client.get(url(reseller, "api_listing_export"), {"within": 600}).status_code == 400


def test_a_viewer_exports_and_reads_but_does_not_import(api_member, brand):
    reseller, *_ = brand
    owner, _ = api_member(Role.OWNER, reseller=reseller)
    import_id = upload(owner, reseller, export(owner, reseller)).json()["id"]
    viewer, _ = api_member(Role.VIEWER, reseller=reseller)
    content = export(viewer, reseller, "xlsx")
    assert content.startswith(b"PK")
    assert upload(viewer, reseller, content, name="x.xlsx").status_code == 403
    assert viewer.get(url(reseller, "api_listing_import_detail", import_id)).status_code == 200
    refused = viewer.post(url(reseller, "api_listing_import_apply", import_id), {},
                          format="json")
    assert refused.status_code == 403
    assert ListingImport.unscoped.filter(reseller=reseller).count() == 1


def test_another_resellers_import_is_404(api_member, brand):
    reseller, *_ = brand
    owner, _ = api_member(Role.OWNER, reseller=reseller)
    import_id = upload(owner, reseller, export(owner, reseller)).json()["id"]
    stranger, other = api_member(Role.OWNER)
    for name in ("api_listing_import_detail", "api_listing_import_apply"):
        answer = getattr(stranger, "get" if name.endswith("detail") else "post")(
            url(other.reseller, name, import_id), {}, format="json")
        assert answer.status_code == 404, name
    assert stranger.get(url(reseller, "api_listing_export")).status_code == 404


def test_sending_straight_away_starts_the_first_wave(api_member, brand):
    reseller, *_ = brand
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    content = edit(export(client, reseller), "csv", {(502, DESCRIPTION): "Now",
                                                     (601, DESCRIPTION): "Later"})
    import_id = upload(client, reseller, content).json()["id"]
    answer = client.post(url(reseller, "api_listing_import_apply", import_id),
                         {"dry_run": False, "waves": [1]}, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer.json()["state"] == "applying"
    with tenant_scope(reseller):
        queued = list(OutboxEntry.objects.values_list("business__remote_id", flat=True))
    assert queued == [502]  # the first wave only


# -- the cells -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "value"), [
    (files.WEEK, [{"day": 2, "isOpen": 1, "workingHours": [{"startHour": 900, "endHour": 70}]}]),
    (files.WEEK, [day(3, 9, 12), day(1, 9, 12)]),  # not in the order of the week
    (files.SPECIAL, [{"specialDate": "2030-12-24", "isOpen": 0}]),
    (files.MORE_HOURS, {"Late: night": [day(0, 9, 17)]}),
    (files.LIST, ["a", 3]),
    (files.TEXT, 78701),
])
def test_a_value_the_readable_format_cannot_carry_is_kept_exactly(kind, value):
    cell = kind.cell(value)
    read = kind.read(cell) if not isinstance(value, int) else value
    assert read == value


def test_clear_empties_a_field_and_an_empty_cell_leaves_it(brand):
    from bulk.imports import row_set

    document = rich_listing("Alpha")
    made = row_set({WEBSITE: "(clear)", "businessInfo.isServiceAreaProvider": "(CLEAR)",
                    "additionalInfo.paymentTypes": "(clear)", CITY: "(clear)",
                    HOURS: " "}, document, headers={})
    location = copy.deepcopy(document["businessInfo"]["location"])
    del location["city"]
    assert made.own_set == {"businessInfo": {"websiteUrl": "", "isServiceAreaProvider": False,
                                             "location": location},
                            "additionalInfo": {"paymentTypes": []}}
    assert made.errors == []


# -- speed -------------------------------------------------------------------------------------


def test_the_export_queries_do_not_grow_with_the_locations():
    def export_queries(count):
        reseller = ResellerFactory()
        parent = BusinessFactory(reseller=reseller, type=Business.Type.ENTERPRISE_LOCATION)
        for index in range(count):
            location = BusinessFactory(reseller=reseller, parent=parent, depth=1,
                                       tree_path=f"{parent.tree_path}{index}/")
            if index % 2:
                accept(location, plain_listing(location.name))
        with tenant_scope(reseller), CaptureQueriesContext(connection) as queries:
            content = listing_export(tenant=reseller, actor=None, membership=None,
                                     params={"within": str(parent.remote_id)},
                                     format="csv").content()
        assert content.count(b"\r\n") == count + 1
        return len(queries)

    assert export_queries(20) == export_queries(200)


@pytest.fixture
def sqlite_real_parameter_limit(monkeypatch):
    """Django assumes SQLite's old limit of 999 parameters per statement and splits bulk
    inserts by it; the SQLite here allows far more, as PostgreSQL does."""
    import sqlite3

    if connection.vendor == "sqlite":
        connection.ensure_connection()
        limit = connection.connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
        monkeypatch.setattr(connection.features, "max_query_params", limit)


def test_the_import_queries_do_not_grow_with_the_rows(sqlite_real_parameter_limit):
    from bulk.imports import listing_import_create

    def import_queries(count):
        reseller = ResellerFactory()
        lines = [["business_number", DESCRIPTION, HOURS]]
        for index in range(count):
            location = BusinessFactory(reseller=reseller)
            if index % 2:
                accept(location, plain_listing(location.name))
            lines.append([str(location.remote_id), f"Description {index % 3}",
                          "Mon 08:00-18:00" if index % 4 else ""])
        with tenant_scope(reseller), CaptureQueriesContext(connection) as queries:
            listing_import = listing_import_create(tenant=reseller, actor=None, membership=None,
                                                   data=write_csv(lines), file_name="x.csv")
        assert listing_import.counts["will_change"] == count
        return len(queries)

    assert import_queries(20) == import_queries(200)


# -- the documentation ---------------------------------------------------------------------------


def test_the_documentation_lists_every_column_and_format():
    """docs/listing-files.md holds the tables `bulk.files` writes; UPDATE_DOCS=1 rewrites them."""
    text = DOC.read_text()
    tables = {"columns": files.columns_markdown(), "formats": files.formats_markdown()}
    for name, table in tables.items():
        start, end = f"<!-- {name}:start -->\n", f"<!-- {name}:end -->"
        before, rest = text.split(start, 1)
        current, after = rest.split(end, 1)
        if os.environ.get("UPDATE_DOCS") == "1":
            text, current = f"{before}{start}{table}{end}{after}", table
            DOC.write_text(text)
        assert current == table, f"docs/listing-files.md: the {name} table is not the code's"
    for column in files.header():
        assert f"`{column}`" in text


# -- the pages -----------------------------------------------------------------------------------


def test_the_businesses_list_offers_export_and_import(member_client, brand):
    reseller, *_ = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    page = client.get(url(reseller, "business_list"), {"city": "Austin"}).content.decode()
    export_url = url(reseller, "listing_export")
    assert f'href="{export_url}?city=Austin&amp;format=csv"' in page
    assert f'href="{export_url}?city=Austin&amp;format=xlsx"' in page
    assert url(reseller, "listing_import_list") in page
    viewer, _ = member_client(Role.VIEWER, reseller=reseller)
    page = viewer.get(url(reseller, "business_list")).content.decode()
    assert export_url in page and url(reseller, "listing_import_list") not in page


def test_the_export_page_keeps_the_filters_and_says_when_nothing_matches(member_client, brand):
    reseller, *_ = brand
    client, _ = member_client(Role.VIEWER, reseller=reseller)
    answer = client.get(url(reseller, "listing_export"), {"within": 600, "format": "csv"})
    assert answer.status_code == 200 and answer["Content-Type"] == files.CSV_CONTENT_TYPE
    assert 'filename="listings-' in answer["Content-Disposition"]
    rows = read_csv(b"".join(answer.streaming_content))
    assert [row[0] for row in rows[1:]] == ["601"]
    workbook = client.get(url(reseller, "listing_export"), {"format": "xlsx"})
    assert [str(row[0]) for row in read_xlsx(workbook.content)[1:]] == ["501", "502", "503",
                                                                         "601"]
    nothing = client.get(url(reseller, "listing_export"), {"city": "Nowhere", "format": "csv"},
                         follow=True)
    assert nothing.redirect_chain[-1][0] == f"{url(reseller, 'business_list')}?city=Nowhere"
    assert "Nothing exported: No location in your part of the account matches these " \
           "filters." in nothing.content.decode()


def test_upload_preview_and_create_the_bulk_change_on_the_pages(member_client, brand):
    reseller, *_ = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    content = edit(b"".join(client.get(url(reseller, "listing_export"),
                                       {"format": "csv"}).streaming_content), "csv",
                   {(502, DESCRIPTION): "From the page", (503, WEBSITE): "nope"})
    answer = client.post(url(reseller, "listing_import_list"),
                         {"file": SimpleUploadedFile("edited.csv", content)})
    listing_import = ListingImport.unscoped.get(reseller=reseller)
    detail = url(reseller, "listing_import_detail", listing_import.pk)
    assert answer.status_code == 302 and answer["Location"] == detail
    page = client.get(detail).content.decode()
    assert "Preview of edited.csv" in page
    assert "From the page" in page
    assert f"<strong>{WEBSITE}</strong>: Enter a full http:// or https:// address" in page
    only_errors = client.get(detail, {"state": "invalid"}).content.decode()
    assert "From the page" not in only_errors
    assert "Enter a full http://" in only_errors

    refused = client.post(url(reseller, "listing_import_apply", listing_import.pk), {},
                          follow=True)
    assert "Rows 4 have errors" in refused.content.decode()
    assert not BulkChange.unscoped.filter(reseller=reseller).exists()
    made = client.post(url(reseller, "listing_import_apply", listing_import.pk),
                       {"waves": "1, 5", "skip_invalid": "on",
                        "action_required_threshold": "0"})
    change = BulkChange.unscoped.get(reseller=reseller)
    assert made.status_code == 302
    assert made["Location"] == reverse("bulk_change_detail", kwargs={"slug": reseller.slug,
                                                                     "pk": change.pk})
    assert change.source == BulkChange.Source.FILE and change.waves == [1, 5]
    assert change.counts["will_change"] == 1
    assert f"bulk change {change.pk}" in client.get(detail).content.decode()
    listed = client.get(url(reseller, "listing_import_list")).content.decode()
    assert "edited.csv" in listed and f"Bulk change {change.pk}" in listed


def test_the_columns_of_a_file_of_ones_own_are_named_on_a_page(member_client, brand):
    reseller, *_ = brand
    client, _ = member_client(Role.MANAGER, reseller=reseller)
    content = write_csv([["Store", WEBSITE, "Notes"], ["501", "https://new.example.com", "x"]])
    answer = client.post(url(reseller, "listing_import_list"),
                         {"file": SimpleUploadedFile("stores.csv", content)})
    columns = url(reseller, "listing_import_columns")
    assert answer.status_code == 302 and answer["Location"] == columns
    page = client.get(columns).content.decode()
    assert "Store" in page and "Notes" in page
    assert not ListingImport.unscoped.filter(reseller=reseller).exists()
    # Two columns that fill the same field: said on the column, nothing imported.
    clash = client.post(columns, {"column_0": "business_number", "column_1": "business_number"})
    assert clash.status_code == 400
    assert "Fills business_number, as the column Store does" in clash.content.decode()
    assert not ListingImport.unscoped.filter(reseller=reseller).exists()
    done = client.post(columns, {"column_0": "business_number", "column_1": ""})
    listing_import = ListingImport.unscoped.get(reseller=reseller)
    assert done.status_code == 302
    assert done["Location"] == url(reseller, "listing_import_detail", listing_import.pk)
    assert listing_import.mapping == {"Store": "business_number", WEBSITE: WEBSITE,
                                      "Notes": ""}
    assert listing_import.counts["will_change"] == 1
    # The file is not kept once imported.
    assert client.get(columns)["Location"] == url(reseller, "listing_import_list")


def test_a_viewer_sees_previews_but_no_upload(member_client, brand):
    reseller, *_ = brand
    client, _ = member_client(Role.VIEWER, reseller=reseller)
    page = client.get(url(reseller, "listing_import_list")).content.decode()
    assert 'type="file"' not in page
    assert client.post(url(reseller, "listing_import_list"),
                       {"file": SimpleUploadedFile("a.csv", b"x")}).status_code == 403


# -- against the sandbox, over HTTP ---------------------------------------------------------------

SANDBOX_KEY = "listing-files-key"


@pytest.fixture
def sandbox_brand(live_server, settings, tmp_path):
    """Four locations of a freshly seeded sandbox, mirrored as a sync leaves them."""
    from sandbox import models as sandbox
    from tests.live import connect_reseller, join_live_server_requests

    settings.PROVIDER_BACKOFF_BASE_SECONDS = 0.01
    settings.PROVIDER_MAX_RETRIES = 1
    settings.DATA_DIR = tmp_path
    reseller, seeded = connect_reseller(live_server, key=SANDBOX_KEY, locations=4, seed=23)
    locations = []
    for remote in sandbox.Business.objects.filter(number__in=seeded["location_numbers"]) \
            .order_by("number"):
        locations.append(BusinessFactory(
            reseller=reseller, remote_id=remote.number, name=remote.name, city=remote.city,
            state=remote.state, zip=remote.zip, address1=remote.address1, phone=remote.phone,
            country_code=remote.country_code, tree_path=f"/{remote.number}/"))
    yield reseller, locations
    join_live_server_requests()


def deliver(reseller, rounds: int = 1):
    """What the workers do: send the outbox's due rows, then step the moving bulk changes."""
    from bulk import sending
    from outbox.services import outbox_due, outbox_send

    with tenant_scope(reseller):
        for _ in range(rounds):
            for entry_id in list(outbox_due(tenant=reseller).values_list("pk", flat=True)):
                outbox_send(tenant=reseller, entry_id=entry_id)
            for change_id in list(sending.bulk_changes_to_advance(tenant=reseller)):
                sending.bulk_change_advance(tenant=reseller, change_id=change_id)


def at_provider(number):
    from sandbox import models as sandbox

    listing = sandbox.Listing.objects.filter(location__number=number).first()
    return listing.payload if listing else {}


def submissions(number) -> int:
    from sandbox import models as sandbox

    return sandbox.ListingSubmission.objects.filter(location__number=number).count()


@pytest.mark.django_db(transaction=True)
def test_a_file_sent_to_the_provider_changes_exactly_its_edited_cells(api_member,
                                                                       sandbox_brand):
    reseller, locations = sandbox_brand
    first, second, third, fourth = (location.remote_id for location in locations)
    client, _ = api_member(Role.MANAGER, reseller=reseller)
    content = edit(export(client, reseller, "xlsx"), "xlsx", {
        (first, DESCRIPTION): "Edited in a spreadsheet",
        (second, HOURS): "Mon 07:00-15:00; Sun closed",
        (third, WEBSITE): "not a website",
    })
    import_id = upload(client, reseller, content, name="edited.xlsx").json()["id"]
    found = preview_rows(client, reseller, import_id)
    assert {number: row["state"] for number, row in found.items()} == {
        first: "will_change", second: "will_change", third: "invalid", fourth: "unchanged"}

    # A file with errors sends nothing.
    refused = client.post(url(reseller, "api_listing_import_apply", import_id),
                          {"dry_run": False}, format="json")
    assert refused.status_code == 400 and "skip_invalid" in refused.json()["fields"]
    deliver(reseller)
    assert [submissions(number) for number in (first, second, third, fourth)] == [0, 0, 0, 0]

    # Its valid rows, in waves of one.
    answer = client.post(url(reseller, "api_listing_import_apply", import_id),
                         {"dry_run": False, "skip_invalid": True, "waves": [1]}, format="json")
    assert answer.status_code == 201, answer.json()
    deliver(reseller, rounds=3)
    change = BulkChange.unscoped.get(pk=answer.json()["id"])
    assert change.state == BulkChange.State.DONE
    assert [submissions(number) for number in (first, second, third, fourth)] == [1, 1, 0, 0]
    assert at_provider(first)["businessInfo"]["mainBusinessDescription"] == \
        "Edited in a spreadsheet"
    assert at_provider(second)["additionalInfo"]["hoursOfOperations"] == [
        day(0, 7, 15), CLOSED_SUNDAY]
    # The first location's hours and the second's description were not sent.
    sent = {number: ListingVersion.unscoped.get(reseller=reseller, business__remote_id=number)
            .payload for number in (first, second)}
    assert set(sent[first]) == {"businessInfo"}
    assert set(sent[first]["businessInfo"]) <= {"name", "phone", "location",
                                                "mainBusinessDescription"}
    assert "mainBusinessDescription" not in sent[second]["businessInfo"]

    # The listings exported again hold the file's values, and importing them changes nothing.
    again = upload(client, reseller, export(client, reseller, "csv"))
    assert again.json()["counts"]["unchanged"] == 4, again.json()["counts"]
