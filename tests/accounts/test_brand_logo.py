"""An uploaded logo is checked and made safe: its real type read from its content (PNG, JPEG,
WebP), its size and dimensions bounded, SVG refused, and the picture drawn again so that nothing
but its pixels is kept. Also the pictures the other brand tests upload."""

from __future__ import annotations

import io
import os

import pytest
from django.core.exceptions import ValidationError
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from PIL import Image, PngImagePlugin

from accounts.brand_logo import MAX_BYTES, logo_as_png, logo_check
from accounts.models import BrandLogo

SVG_WITH_SCRIPT = (b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="64" '
                   b'height="64"><script>fetch("/api/v1/")</script><rect width="64" '
                   b'height="64" fill="#0b3d2e"/></svg>')
PLAIN_SVG = (b'<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" '
             b'height="64" fill="#0b3d2e"/></svg>')


def picture(width: int = 120, height: int = 40, kind: str = "PNG", **save) -> bytes:
    """A small logo: a light band with a dark diagonal."""
    mode = "RGB" if kind == "JPEG" else "RGBA"
    image = Image.new(mode, (width, height), (250, 250, 250) if mode == "RGB" else (0, 0, 0, 0))
    for x in range(width):
        image.putpixel((x, x * height // width), (11, 61, 46) if mode == "RGB"
                       else (255, 255, 255, 255))
    out = io.BytesIO()
    image.save(out, format=kind, **save)
    return out.getvalue()


def png_with_text(text: str) -> bytes:
    """A PNG carrying `text` in a metadata chunk (what an editor leaves: an author, a path)."""
    info = PngImagePlugin.PngInfo()
    info.add_text("Author", text)
    return picture(pnginfo=info)


def noise_png(side: int) -> bytes:
    """A PNG that does not compress: heavy for its dimensions."""
    image = Image.frombytes("RGB", (side, side), os.urandom(side * side * 3))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def multipart(data: dict) -> tuple[bytes, str]:
    """A multipart body and its content type, for a PUT (the test client encodes POSTs only)."""
    return encode_multipart(BOUNDARY, data), MULTIPART_CONTENT


def make_brand(reseller, *, logo: bytes | None = None, **fields):
    """A brand written directly (the services are tested on their own), with `logo` (a
    picture, checked as an upload would be) when given."""
    values = {"product_name": "Riverside Digital", "primary_colour": "#0b3d2e",
              "accent_colour": "#8a2be2", "support_email": "help@riverside.example",
              "sender_name": "Riverside Digital", "sender_email": "noreply@riverside.example",
              **fields}
    for name, value in values.items():
        setattr(reseller, f"brand_{name}", value)
    if logo is not None:
        checked = logo_check(logo)
        BrandLogo.unscoped.create(reseller=reseller, data=checked.data,
                                  content_type=checked.content_type, hash=checked.hash)
        reseller.brand_logo_hash, reseller.brand_logo_content_type = (checked.hash,
                                                                      checked.content_type)
        reseller.brand_logo_width, reseller.brand_logo_height = checked.width, checked.height
    reseller.save()
    return reseller


def refusal(data: bytes, **kwargs) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        logo_check(data, **kwargs)
    return caught.value


def message(error: ValidationError) -> str:
    return " ".join(error.message_dict["logo"])


# -- accepted, and drawn again ------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "content_type"), [("PNG", "image/png"), ("JPEG", "image/jpeg"),
                                                     ("WEBP", "image/webp")])
def test_png_jpeg_and_webp_are_accepted_as_what_they_are(kind, content_type):
    checked = logo_check(picture(kind=kind), file_name="logo.bin")
    assert checked.content_type == content_type
    assert (checked.width, checked.height) == (120, 40)
    with Image.open(io.BytesIO(checked.data)) as image:
        assert image.format == kind
    assert len(checked.hash) == 64


def test_the_type_comes_from_the_content_not_the_name():
    assert logo_check(picture(kind="JPEG"), file_name="logo.png").content_type == "image/jpeg"


def test_metadata_is_not_kept():
    upload = png_with_text("C:/Users/jane/clients/secret-plans")
    assert b"secret-plans" in upload
    stored = logo_check(upload).data
    assert b"secret-plans" not in stored and b"tEXt" not in stored


def test_a_photos_exif_goes_and_its_orientation_stays():
    image = Image.new("RGB", (60, 30), (200, 10, 10))
    exif = Image.Exif()
    exif[0x0112] = 6  # rotated: shown upright, it is 30 wide and 60 high
    exif[0x010F] = "CameraMaker-Secret"
    out = io.BytesIO()
    image.save(out, format="JPEG", exif=exif.tobytes())
    checked = logo_check(out.getvalue())
    assert (checked.width, checked.height) == (30, 60)
    assert b"CameraMaker-Secret" not in checked.data and b"Exif" not in checked.data


def test_a_file_hidden_after_the_picture_is_dropped():
    polyglot = picture() + b"<html><script>alert(document.cookie)</script></html>"
    stored = logo_check(polyglot).data
    assert b"<script" not in stored
    assert stored.endswith(b"IEND\xaeB`\x82")


def test_a_webp_logo_becomes_png_for_emails_and_documents():
    checked = logo_check(picture(kind="WEBP"))
    data, content_type = logo_as_png(checked.data, checked.content_type)
    assert content_type == "image/png" and data.startswith(b"\x89PNG")
    assert logo_as_png(b"jpeg", "image/jpeg") == (b"jpeg", "image/jpeg")


# -- refused, saying why ------------------------------------------------------------------------


def test_a_file_that_is_not_a_picture_is_refused():
    error = refusal(b"name,city\nRiverside,Austin\n" * 10, file_name="logo.png")
    assert error.message_dict["logo"] and error.error_dict["logo"][0].code == "not_an_image"
    assert "not a PNG, JPEG or WebP picture" in message(error)


def test_another_kind_of_picture_is_refused_by_name():
    error = refusal(picture(kind="GIF"), file_name="logo.gif")
    assert "This is a GIF file, not a PNG, JPEG or WebP picture" in message(error)


def test_a_file_over_the_size_limit_is_refused_without_being_read_whole():
    heavy = noise_png(600)
    assert len(heavy) > MAX_BYTES
    error = refusal(heavy[:MAX_BYTES + 1], size=len(heavy))
    assert error.error_dict["logo"][0].code == "too_large"
    assert f"the most is {MAX_BYTES // 1024} KB" in message(error)
    assert f"{len(heavy) / 1024:.0f} KB" in message(error)


@pytest.mark.parametrize(("width", "height", "code", "words"), [
    (2100, 40, "too_big", "2100 × 40 pixels; the most is 2000 × 2000"),
    (40, 2001, "too_big", "40 × 2001 pixels; the most is 2000 × 2000"),
    (12, 40, "too_small", "12 × 40 pixels; it needs at least 16 × 16"),
])
def test_dimensions_are_bounded(width, height, code, words):
    error = refusal(picture(width, height))
    assert error.error_dict["logo"][0].code == code
    assert words in message(error)


def test_an_svg_with_a_script_is_refused_saying_so():
    error = refusal(SVG_WITH_SCRIPT, file_name="logo.svg")
    assert error.error_dict["logo"][0].code == "svg"
    assert "carries a script" in message(error)
    assert "Upload a PNG, JPEG or WebP picture instead" in message(error)


def test_any_svg_is_refused_whatever_its_name():
    for name in ("logo.svg", "logo.png", ""):
        error = refusal(PLAIN_SVG, file_name=name)
        assert error.error_dict["logo"][0].code == "svg", name
        assert "SVG files can carry scripts" in message(error)


def test_an_empty_or_cut_short_file_is_refused():
    assert refusal(b"").error_dict["logo"][0].code == "empty"
    cut = picture(400, 300)[:300]
    assert refusal(cut).error_dict["logo"][0].code in {"damaged", "not_an_image"}


def test_a_picture_claiming_a_huge_canvas_is_refused_before_it_is_decoded():
    # A tiny file whose header claims 30000 x 30000 pixels.
    bomb = io.BytesIO()
    Image.new("1", (30000, 30000)).save(bomb, format="PNG")
    error = refusal(bomb.getvalue())
    assert error.error_dict["logo"][0].code in {"too_big", "not_an_image"}
