"""An uploaded logo, checked and made safe to serve: its real type read from its content, its
size and dimensions bounded, and the picture drawn again into a new file.

Drawing it again keeps only pixels: whatever else the upload carried (metadata with the
author's location, a second file hidden after the picture that a browser might read as a page
or a script) is gone, and what is stored is a file Pillow itself wrote. SVG is refused: it is
a document that can carry scripts and load other addresses, not a picture.
"""

from __future__ import annotations

import hashlib
import io
import re
import warnings
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from PIL import Image, ImageOps, UnidentifiedImageError

MAX_BYTES = 512 * 1024
MAX_SIDE = 2000
MIN_SIDE = 16
# Pillow's name of each format accepted, and what it is served as.
FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}
EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp"}
ACCEPTED_TEXT = "a PNG, JPEG or WebP picture"

SVG_START = re.compile(rb"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*(?:<!DOCTYPE[^>]*>\s*)?<svg\b",
                       re.IGNORECASE | re.DOTALL)
SVG_ACTIVE = re.compile(rb"<script\b|<foreignObject\b|\son[a-z]+\s*=|javascript:|"
                        rb"(?:xlink:)?href\s*=\s*[\"']?\s*(?!#)", re.IGNORECASE)


@dataclass(frozen=True)
class CheckedLogo:
    data: bytes
    content_type: str
    width: int
    height: int

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def _refuse(message: str, code: str) -> ValidationError:
    return ValidationError({"logo": ValidationError(message, code=code)})


def _size_text(size: int) -> str:
    return f"{size / 1024:.0f} KB" if size >= 1024 else f"{size} bytes"


def _looks_like_svg(data: bytes, file_name: str) -> bool:
    head = data[:4096]
    return file_name.lower().endswith((".svg", ".svgz")) or bool(SVG_START.match(head)) or (
        b"<svg" in head.lower())


def logo_check(data: bytes, *, file_name: str = "", size: int | None = None) -> CheckedLogo:
    """The upload as a logo the portal may store and serve, drawn again; ValidationError on
    "logo" saying what is wrong otherwise.

    `size` is the upload's full size when `data` holds only its first MAX_BYTES + 1 bytes (the
    caller need not read a huge file to have it refused).
    """
    size = len(data) if size is None else size
    if size == 0 or not data:
        raise _refuse("The file is empty: choose the logo's picture file.", "empty")
    if size > MAX_BYTES or len(data) > MAX_BYTES:
        raise _refuse(f"The logo is {_size_text(max(size, len(data)))}; the most is "
                      f"{_size_text(MAX_BYTES)}. Save it smaller (a logo needs no more than a "
                      f"few hundred pixels across).", "too_large")
    if _looks_like_svg(data, file_name):
        active = SVG_ACTIVE.search(data)
        reason = ("This SVG file carries a script or loads other addresses, which could run "
                  "in the pages of everyone who sees the logo." if active else
                  "SVG files can carry scripts that would run in the pages of everyone who "
                  "sees the logo, so they are not accepted.")
        raise _refuse(f"{reason} Upload {ACCEPTED_TEXT} instead (export the SVG as a PNG).",
                      "svg")
    try:
        with warnings.catch_warnings():
            # A file claiming a huge canvas is refused before its pixels are decoded.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            kind = image.format
            if kind not in FORMATS:
                raise _refuse(f"This is a {kind or 'kind of'} file, not {ACCEPTED_TEXT}.",
                              "wrong_type")
            width, height = image.size
            if width > MAX_SIDE or height > MAX_SIDE:
                raise _refuse(f"The logo is {width} × {height} pixels; the most is "
                              f"{MAX_SIDE} × {MAX_SIDE}.", "too_big")
            if width < MIN_SIDE or height < MIN_SIDE:
                raise _refuse(f"The logo is {width} × {height} pixels; it needs at least "
                              f"{MIN_SIDE} × {MIN_SIDE} to be readable.", "too_small")
            image.load()
            checked = _draw_again(image, kind)
    except ValidationError:
        raise
    except (UnidentifiedImageError, Image.DecompressionBombError,
            Image.DecompressionBombWarning) as exc:
        raise _refuse(f"This file is not {ACCEPTED_TEXT}: its content is not a picture the "
                      "portal can read.", "not_an_image") from exc
    except (OSError, ValueError, SyntaxError) as exc:
        raise _refuse(f"This picture is damaged or cut short: save it again as "
                      f"{ACCEPTED_TEXT}.", "damaged") from exc
    if len(checked.data) > MAX_BYTES:
        raise _refuse(f"Once cleaned, the logo is {_size_text(len(checked.data))}; the most is "
                      f"{_size_text(MAX_BYTES)}. Save it smaller.", "too_large")
    return checked


def _draw_again(image: Image.Image, kind: str) -> CheckedLogo:
    """A new file of the same format holding only the first frame's pixels, upright."""
    image = ImageOps.exif_transpose(image)  # a photo's orientation, before its EXIF goes
    out = io.BytesIO()
    if kind == "JPEG":
        image = image.convert("RGB")
        image.save(out, format="JPEG", quality=90, optimize=True)
    else:
        has_alpha = image.mode in ("RGBA", "LA", "PA") or (
            image.mode == "P" and "transparency" in image.info)
        image = image.convert("RGBA" if has_alpha else "RGB")
        if kind == "PNG":
            image.save(out, format="PNG", optimize=True)
        else:
            image.save(out, format="WEBP", quality=90, method=4)
    return CheckedLogo(data=out.getvalue(), content_type=FORMATS[kind], width=image.width,
                       height=image.height)


def logo_as_png(data: bytes, content_type: str) -> tuple[bytes, str]:
    """The logo in a format every mail reader and document renderer shows: PNG and JPEG as
    they are, WebP drawn again as PNG."""
    if content_type in ("image/png", "image/jpeg"):
        return data, content_type
    with Image.open(io.BytesIO(data)) as image:
        out = io.BytesIO()
        image.convert("RGBA").save(out, format="PNG", optimize=True)
    return out.getvalue(), "image/png"
