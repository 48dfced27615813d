"""manage.py report_render: writes the PDF and prints one line of JSON; bad input is a clear
error naming the option."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command
from pypdf import PdfReader

from tests.reports.conftest import pdf_text

pytestmark = pytest.mark.django_db


def render(*args) -> dict:
    out = io.StringIO()
    call_command("report_render", *args, stdout=out)
    (line,) = out.getvalue().strip().splitlines()
    return json.loads(line)


def test_the_command_writes_a_valid_pdf_and_prints_json(agency, tmp_path):
    target = tmp_path / "brand.pdf"
    printed = render("--reseller", "northwind", "--business", "100", "--from", "2026-03-01",
                     "--to", "2026-03-31", "--out", str(target))
    data = target.read_bytes()
    assert printed == {"pages": len(PdfReader(io.BytesIO(data)).pages), "bytes": len(data),
                       "business": 100, "period": {"from": "2026-03-01", "to": "2026-03-31"}}
    assert printed["pages"] >= 1
    text = pdf_text(data)
    assert "Report for Bakery Brand" in text and "Northwind Reports" in text

    whole = render("--reseller", "northwind", "--from", "2026-03-01", "--to", "2026-03-31",
                   "--out", str(tmp_path / "account.pdf"))
    assert whole["business"] is None
    assert "Report for Northwind Digital" in pdf_text((tmp_path / "account.pdf").read_bytes())


@pytest.mark.parametrize(("args", "message"), [
    (["--reseller", "nobody"], "--reseller: no reseller with slug 'nobody'"),
    (["--reseller", "northwind", "--from", "March"], "--from: 'March' is not a day"),
    (["--reseller", "northwind", "--to", "2026-02-01"], "--from: The first day"),
    (["--reseller", "northwind", "--to", "2999-01-01"], "--to: The last day"),
    (["--reseller", "northwind", "--business", "4242"], "--business: No business"),
    (["--reseller", "northwind", "--out", "/no/such/folder/x.pdf"], "--out: the folder"),
])
def test_bad_input_is_a_clear_error(agency, tmp_path, args, message):
    given = {"--from": "2026-03-01", "--to": "2026-03-31", "--out": str(tmp_path / "x.pdf")}
    for index in range(0, len(args), 2):
        given[args[index]] = args[index + 1]
    with pytest.raises(CommandError, match=message):
        call_command("report_render", *[part for pair in given.items() for part in pair],
                     stdout=io.StringIO())
    assert not (tmp_path / "x.pdf").exists()
