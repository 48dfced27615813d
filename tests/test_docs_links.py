"""The project's documentation points only at what the repository holds: every link and every
file named in code style in README.md and docs/ exists, inside the repository, and every link
to a heading finds it. (docs/sandbox.md once sent readers to a `spec/` folder that is not
part of the repository.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE = re.compile(r"`([^`\n]+)`")
# A file named in code style: a path of the repository by its extension (`data/...` files
# are made at run time, and `/...` are URLs of the portal).
FILE_LIKE = re.compile(r"^[\w.][\w./-]*\.(md|py|html|toml|cfg|ini|ya?ml|sh|css|js|txt)$")


def slug(heading: str) -> str:
    """The anchor a Markdown renderer gives a heading."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {slug(line.lstrip("#")) for line in path.read_text().splitlines()
            if line.startswith("#")}


def inside_repository(path: Path) -> bool:
    return path.resolve().is_relative_to(ROOT)


def problems_in(doc: Path) -> list[str]:
    text = doc.read_text()
    problems = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
            continue
        name, _, anchor = target.partition("#")
        linked = (doc.parent / name) if name else doc
        if name.startswith("/") or not inside_repository(linked):
            problems.append(f"{target}: outside the repository")
        elif not linked.exists():
            problems.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            problems.append(f"{target}: no heading #{anchor}")
    for span in CODE.findall(text):
        span = span.strip()
        # A bare `models.py` is every app's; a bare document name is one file.
        if span.startswith("data/") or not FILE_LIKE.match(span) or (
                "/" not in span and not span.endswith(".md")):
            continue
        candidates = [ROOT / span, doc.parent / span]
        if not any(inside_repository(path) and path.exists() for path in candidates):
            problems.append(f"`{span}`: no such file in the repository")
    return problems


@pytest.mark.parametrize("doc", DOCS, ids=[str(doc.relative_to(ROOT)) for doc in DOCS])
def test_the_document_points_only_at_files_of_the_repository(doc):
    assert not problems_in(doc)


def test_a_link_outside_the_repository_or_to_nothing_is_found(tmp_path, monkeypatch):
    doc = ROOT / "docs" / "example.md"
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: (
        "See `spec/interface.md`, [the rules](../../shared/spec/parameters.md), "
        "[gone](missing.md), [sandbox](sandbox.md#no-such-heading), "
        "[fine](sandbox.md#keys) and `provider/client.py`.\n# Keys\n"))
    found = problems_in(doc)
    assert len(found) == 4, found
    assert not any("sandbox.md#keys" in problem or "client.py" in problem for problem in found)


def test_the_provider_interface_is_described_inside_the_repository():
    interface = (ROOT / "docs" / "provider-interface.md").read_text()
    for number in range(1, 17):
        assert re.search(rf"^\| {number} \| ", interface, re.MULTILINE), number
    assert "provider-interface.md" in (ROOT / "docs" / "sandbox.md").read_text()
