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
