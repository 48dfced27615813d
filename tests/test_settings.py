"""Production mode refuses to start without its secrets and then passes check --deploy."""

import os
import subprocess
import sys
from pathlib import Path

from cryptography.fernet import Fernet

ROOT = Path(__file__).resolve().parent.parent


def run_manage(*args, extra_env):
    # A clean production environment: none of the test run's own settings leak in.
    env = {k: v for k, v in os.environ.items()
           if k not in {"SECRET_KEY", "ALLOWED_HOSTS", "API_KEY_ENCRYPTION_KEYS", "DEBUG",
                        "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    env.update(ENV_FILE="/nonexistent", DJANGO_ENV="production", **extra_env)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


PRODUCTION_ENV = {
    "SECRET_KEY": "p" * 20 + "roduction-secret-key-with-enough-entropy-8f3k2j9x",
    "ALLOWED_HOSTS": "portal.example.com",
    "API_KEY_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
}


def test_production_refuses_to_start_without_each_secret():
    for missing in PRODUCTION_ENV:
        env = {k: v for k, v in PRODUCTION_ENV.items() if k != missing}
        result = run_manage("check", extra_env=env)
        assert result.returncode != 0
        assert f"{missing} must be set when DJANGO_ENV=production" in result.stderr


def test_production_passes_the_deployment_checks():
    result = run_manage("check", "--deploy", "--fail-level", "WARNING",
                        extra_env=PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_sandbox_is_not_mounted_in_production_unless_asked():
    probe = ("from django.urls import resolve, Resolver404\n"
             "try:\n    resolve('/sandbox/openapi.json'); print('mounted')\n"
             "except Resolver404:\n    print('absent')\n")
    absent = run_manage("shell", "-c", probe, extra_env=PRODUCTION_ENV)
    assert absent.stdout.strip().splitlines()[-1] == "absent", absent.stderr
    mounted = run_manage("shell", "-c", probe,
                         extra_env={**PRODUCTION_ENV, "SANDBOX_ENABLED": "1"})
    assert mounted.stdout.strip().splitlines()[-1] == "mounted", mounted.stderr


def _fresh_env(data_dir, **extra):
    # Only DATA_DIR decides where things go: the run's own database, cache or broker are unset.
    env = {k: v for k, v in os.environ.items()
           if k not in {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "STATIC_ROOT",
                        "DJANGO_ENV", "DEBUG"}}
    env.update(ENV_FILE="/nonexistent", DATA_DIR=str(data_dir), **extra)
    return env


def test_importing_the_settings_creates_no_folder(tmp_path):
    data_dir = tmp_path / "fresh" / "data"
    result = subprocess.run([sys.executable, "-c", "import portal.settings"], cwd=ROOT,
                            env=_fresh_env(data_dir), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert list(tmp_path.iterdir()) == []


SETUP_PROBE = """
import django
django.setup()
from django.db import connection
connection.ensure_connection()
from portal.celery import app
app.send_task("tests.nothing")
"""


def test_setup_makes_the_folders_that_sqlite_and_the_filesystem_broker_need(tmp_path):
    # Neither creates its folder, and a fresh clone has no data/.
    data_dir = tmp_path / "data"
    result = subprocess.run([sys.executable, "-c", SETUP_PROBE], cwd=ROOT,
                            env=_fresh_env(data_dir), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert (data_dir / "portal.sqlite3").is_file()
    assert len(list((data_dir / "broker" / "queue").iterdir())) == 1


BEAT_PROBE = """
import sys
from pathlib import Path
import django
django.setup()
assert not Path(sys.argv[1]).exists(), "created by django.setup()"
from portal.celery import app
app.loader.import_default_modules()  # what a worker or beat does before beat opens its schedule
assert Path(sys.argv[1]).is_dir()
"""


def test_without_sqlite_nor_a_filesystem_broker_only_beat_makes_the_data_folder(tmp_path):
    data_dir = tmp_path / "data"
    env = _fresh_env(data_dir, DATABASE_URL="postgres://nobody@127.0.0.1:1/none",
                     CELERY_BROKER_URL="redis://127.0.0.1:1/0",
                     STATIC_ROOT=str(tmp_path / "static"))
    result = subprocess.run([sys.executable, "-c", BEAT_PROBE, str(data_dir)], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
