"""A built wheel carries everything the portal needs to run, and none of the repository's tooling.

What it must hold is found by walking the repository, so that a new app, migration, static
file, template or data file is covered without an edit here. The wheel is built offline, with
the virtualenv's own setuptools, from a copy of the files git knows (tracked, or new and not
ignored): what a fresh clone with the same work would build, without `data/` or caches.
"""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path, PurePosixPath

import pytest
from django.apps import apps

ROOT = Path(__file__).resolve().parent.parent
# Top-level packages of the repository that are not part of the running portal.
NOT_SHIPPED = {"tests", "bench"}


def repository_files() -> list[PurePosixPath]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT, capture_output=True, text=True, check=True).stdout
    # A tracked file deleted in the work tree is still listed until the deletion is staged.
    return sorted(PurePosixPath(name) for name in listed.split("\0")
                  if name and (ROOT / name).is_file())


FILES = repository_files()
TOP_PACKAGES = {path.parts[0] for path in FILES
                if len(path.parts) == 2 and path.name == "__init__.py"}
SHIPPED_PACKAGES = TOP_PACKAGES - NOT_SHIPPED
# Dotfiles (a .gitkeep) are not package data: setuptools' globs skip them, as they should.
SHIPPED_FILES = [path for path in FILES
                 if path.parts[0] in SHIPPED_PACKAGES | {"templates"} and len(path.parts) > 1
                 and not any(part.startswith(".") for part in path.parts)]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for path in FILES:
        (source / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / path, source / path)
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
         "--quiet", "-w", str(out), str(source)],
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    [built] = out.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def names(wheel) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def missing(expected, names) -> list[str]:
    return sorted(str(path) for path in expected if str(path) not in names)


def test_every_project_app_ships_with_its_app_config(names):
    # The project's own apps: inside the repository, not in its virtualenv.
    own_apps = [config for config in apps.get_app_configs()
                if Path(config.path).resolve().is_relative_to(ROOT)
                and not Path(config.path).resolve().is_relative_to(Path(sys.prefix).resolve())]
    assert {config.name.split(".")[0] for config in own_apps} <= SHIPPED_PACKAGES
    expected = [PurePosixPath(Path(config.path).resolve().relative_to(ROOT).as_posix(), "apps.py")
                for config in own_apps]
    assert all((ROOT / path).is_file() for path in expected), expected
    assert not missing(expected, names)


def test_every_first_migration_ships(names):
    expected = [path for path in SHIPPED_FILES
                if path.parent.name == "migrations" and path.name.startswith("0001_")]
    assert expected
    assert not missing(expected, names)


def test_every_static_file_ships(names):
    expected = [path for path in SHIPPED_FILES if "static" in path.parts[1:-1]]
    assert expected
    assert not missing(expected, names)


def test_the_templates_ship_where_the_settings_look_for_them(names):
    # Settings read BASE_DIR / "templates": installed, BASE_DIR is the folder that holds portal/.
    expected = [path for path in FILES if path.parts[0] == "templates"]
    assert expected
    assert not missing(expected, names)


def test_every_file_of_every_package_ships(names):
    # Modules, and any data file an app reads at run time whatever its name.
    assert not missing(SHIPPED_FILES, names)


def test_nothing_but_the_packages_and_the_templates_ships(names):
    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    # A folder here that is not a package (or a new tooling package) needs an entry in
    # pyproject.toml's `exclude`, or a decision that it ships.
    assert top == SHIPPED_PACKAGES | {"templates"}
    assert not any(name.endswith((".pyc", ".pyo")) or "__pycache__" in name for name in names)


PROBE = """
import sys
from pathlib import Path

import django

target = Path(sys.argv[1]).resolve()
django.setup()
import portal
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.template.loader import get_template

assert Path(portal.__file__).resolve().is_relative_to(target), portal.__file__
for name in ("base.html", "accounts/settings_invite_email.txt"):
    origin = Path(get_template(name).origin.name).resolve()
    assert origin.is_relative_to(target), origin
assert Path(finders.find("portal/app.css")).resolve().is_relative_to(target)
call_command("check")
print("wheel runs")
"""


def test_the_installed_wheel_runs_the_portal(wheel, tmp_path):
    # A pure-Python wheel unpacked is what an installer lays out in site-packages.
    installed = tmp_path / "site-packages"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(installed)
    env = {**os.environ, "PYTHONPATH": str(installed), "DJANGO_SETTINGS_MODULE": "portal.settings",
           "ENV_FILE": "/nonexistent", "DATA_DIR": str(tmp_path / "data"),
           "STATIC_ROOT": str(tmp_path / "static")}
    result = subprocess.run([sys.executable, "-c", PROBE, str(installed)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "wheel runs" in result.stdout
