"""Settings, all read from the environment (see `.env.example` for every variable).

With nothing set the portal runs on one machine: SQLite and a file cache under `data/`, a Celery
broker on the filesystem, and the embedded sandbox. `DATABASE_URL`, `REDIS_URL` and
`CELERY_BROKER_URL` move it onto PostgreSQL and Redis. `DJANGO_ENV=production` turns on the
deployment hardening and refuses to start without the secrets it needs.
"""

from datetime import timedelta
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
env_file = env.str("ENV_FILE", default=str(BASE_DIR / ".env"))
if Path(env_file).is_file():
    environ.Env.read_env(env_file, overwrite=False)

DJANGO_ENV = env.str("DJANGO_ENV", default="development")
if DJANGO_ENV not in {"development", "production"}:
    raise ImproperlyConfigured("DJANGO_ENV must be 'development' or 'production'.")
PRODUCTION = DJANGO_ENV == "production"

# Relative paths are taken from the project directory, whatever the working directory is.
DATA_DIR = BASE_DIR / env.str("DATA_DIR", default="data")
# Settings only name folders: each is created where it is first needed (portal/apps.py,
# portal/celery.py), so importing them writes nothing.


def _required_in_production(name: str) -> None:
    if PRODUCTION and not env.str(name, default=""):
        raise ImproperlyConfigured(f"{name} must be set when DJANGO_ENV=production.")


for _name in ("SECRET_KEY", "ALLOWED_HOSTS", "API_KEY_ENCRYPTION_KEYS"):
    _required_in_production(_name)

# Development only: a fixed key keeps sessions valid across restarts on a laptop.
SECRET_KEY = env.str("SECRET_KEY", default="") or "dev-only-insecure-key-never-used-in-production"
DEBUG = env.bool("DEBUG", default=False)
if PRODUCTION and DEBUG:
    raise ImproperlyConfigured("DEBUG must be off when DJANGO_ENV=production.")

ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"]
)
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# Fernet keys for provider API credentials, newest first. Deliberately separate from SECRET_KEY
# so either can be rotated without touching the other.
API_KEY_ENCRYPTION_KEYS = env.list("API_KEY_ENCRYPTION_KEYS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_filters",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "csp",
    "portal",
    "accounts",
    "outbox",
    "listings",
    "media_app",
    "reviews_app",
    "sync",
    "dashboard",
    "events",
    "history",
    "alerts",
    "bulk",
    "reports",
    "sandbox",
    "demo",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After the sign-in is known: dates in the member's own time zone.
    "portal.middleware.MemberTimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A reseller's own address (`portal.agency.example`) shows its brand and leads only into
    # its portal; every page knows the brand its error page shows (docs/branding.md).
    "accounts.brand_middleware.BrandHostMiddleware",
    # Last, as django-axes asks: it turns a locked-out sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "portal.urls"
WSGI_APPLICATION = "portal.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.tenancy",
                "alerts.context_processors.notifications",
            ],
        },
    },
]

DATABASES = {
    "default": env.db_url_config(
        env.str("DATABASE_URL", default="") or f"sqlite:///{DATA_DIR / 'portal.sqlite3'}"
    ),
}
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("DB_CONN_MAX_AGE", default=60))
DATABASES["default"].setdefault("CONN_HEALTH_CHECKS", True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL and a busy timeout let the web server, the worker and the sandbox share one file.
    # Transactions take the write lock when they begin: one that read first and then wrote
    # would otherwise fail at once with "database is locked" instead of waiting its turn.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "transaction_mode": "IMMEDIATE",
         "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"}
    )
    # The covering indexes' INCLUDE columns are for PostgreSQL's index-only scans; SQLite
    # builds the same indexes without them, which is all it needs (models.W040 says so).
    SILENCED_SYSTEM_CHECKS = ["models.W040"]

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"
# The tenant: the model every tenant-owned row points at (`portal.tenancy.TenantOwned`).
TENANT_MODEL = "accounts.Reseller"

REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    CACHES = {
        # Django's Redis cache, served from the process's memory while Redis does not answer
        # (portal/cache.py): Redis holds nothing durable, and no request fails for it.
        "default": {"BACKEND": "portal.cache.TolerantRedisCache", "LOCATION": REDIS_URL}
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(DATA_DIR / "cache"),
        }
    }

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
     "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# django-axes first: it refuses a locked-out sign-in before any password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

# Failed sign-ins: after AXES_FAILURE_LIMIT failures for one email address from one IP address,
# that pair is locked out for AXES_COOLOFF_MINUTES, even with the right password. Locking the
# pair (not the address alone) keeps one attacker from locking a user out from everywhere.
AXES_ENABLED = env.bool("AXES_ENABLED", default=True)
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# The sign-in forms (the portal's and the admin's) post the email address as "username".
AXES_USERNAME_FORM_FIELD = "username"
AXES_USERNAME_CALLABLE = "accounts.lockout.lockout_username"
AXES_CLIENT_IP_CALLABLE = "accounts.lockout.client_address"
# Behind a TLS-terminating proxy, which appends the client's address to X-Forwarded-For and
# sets X-Forwarded-Proto. Without a proxy those headers come from the client and are ignored.
BEHIND_TLS_PROXY = env.bool("BEHIND_TLS_PROXY", default=False)
AXES_LOCKOUT_CALLABLE = "accounts.lockout.lockout_response"
AXES_SENSITIVE_PARAMETERS = ["password", "new_password1", "new_password2", "api_key"]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = env.str("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True
# One way to write a moment and a day on every page, the admin's included: the same as the
# `when` and `day` template filters (portal.templatetags.portal_tags). The locale's formats
# win over these settings, so portal/formats/en says the same for English.
DATETIME_FORMAT = "M j, Y, H:i T"
DATE_FORMAT = "M j, Y"
SHORT_DATETIME_FORMAT = DATETIME_FORMAT
SHORT_DATE_FORMAT = DATE_FORMAT
FORMAT_MODULE_PATH = ["portal.formats"]

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / env.str("STATIC_ROOT", default=str(DATA_DIR / "staticfiles"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = not PRODUCTION

EMAIL_CONFIG = env.email_url("EMAIL_URL", default="consolemail://")
vars().update(EMAIL_CONFIG)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="portal@localhost")

# Request bodies: a non-file body over DATA_UPLOAD_MAX_MEMORY_SIZE is refused with 400 (the API
# answers 413); uploaded files over FILE_UPLOAD_MAX_MEMORY_SIZE are streamed to a temporary file
# instead of memory. DATA_UPLOAD_MAX_NUMBER_FIELDS caps the fields of one form.
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=2_621_440)
FILE_UPLOAD_MAX_MEMORY_SIZE = env.int("FILE_UPLOAD_MAX_MEMORY_SIZE", default=2_621_440)
DATA_UPLOAD_MAX_NUMBER_FIELDS = 2000

# The embedded provider sandbox (see sandbox/). Served under /sandbox/.
SANDBOX_ENABLED = env.bool("SANDBOX_ENABLED", default=not PRODUCTION)

# Provider events. The provider delivers them to PORTAL_PUBLIC_URL/hooks/provider/<id>/; without
# it the portal cannot subscribe itself. Bodies over the limit are refused (413) unread.
PORTAL_PUBLIC_URL = env.str("PORTAL_PUBLIC_URL", default="").rstrip("/")
PROVIDER_EVENT_MAX_BODY_BYTES = env.int("PROVIDER_EVENT_MAX_BODY_BYTES", default=64 * 1024)
PROVIDER_EVENT_MAX_ATTEMPTS = env.int("PROVIDER_EVENT_MAX_ATTEMPTS", default=5)

# Outbound calls to a reseller's provider base URL: loopback is allowed for the demo and tests.
PROVIDER_ALLOW_PRIVATE_HOSTS = env.bool("PROVIDER_ALLOW_PRIVATE_HOSTS", default=not PRODUCTION)
PROVIDER_CONNECT_TIMEOUT = env.float("PROVIDER_CONNECT_TIMEOUT", default=5.0)
PROVIDER_READ_TIMEOUT = env.float("PROVIDER_READ_TIMEOUT", default=30.0)
PROVIDER_MAX_RETRIES = env.int("PROVIDER_MAX_RETRIES", default=3)
PROVIDER_BACKOFF_BASE_SECONDS = env.float("PROVIDER_BACKOFF_BASE_SECONDS", default=0.5)
# How many processes (web and worker processes together) may call the provider with one
# reseller's key at once. The rate limit is shared through Redis; while Redis does not answer,
# each process keeps to this share of the key's limit on its own, so that together they stay
# under it.
PROVIDER_RATE_LIMIT_PROCESSES = env.int("PROVIDER_RATE_LIMIT_PROCESSES", default=4)

# Sync: locations per chunk task (a chunk costs about a dozen statements whatever its size; see
# docs/performance.md), concurrent provider requests per chunk, and when a run that stopped
# reporting progress counts as dead (a new one may then start).
SYNC_CHUNK_SIZE = env.int("SYNC_CHUNK_SIZE", default=250)
SYNC_FETCH_THREADS = env.int("SYNC_FETCH_THREADS", default=4)
SYNC_QNA_PAGE_SIZE = env.int("SYNC_QNA_PAGE_SIZE", default=100)
SYNC_REPORT_LOOKBACK_DAYS = env.int("SYNC_REPORT_LOOKBACK_DAYS", default=365)
SYNC_STALE_AFTER_SECONDS = env.int("SYNC_STALE_AFTER_SECONDS", default=900)
# A step of a run (the walk, a chunk of locations, the account resources) gives a sign of life
# every SYNC_HEARTBEAT_SECONDS while it works; one silent for SYNC_STEP_STALE_SECONDS was left
# by a dead worker, and the sweep (every SYNC_SWEEP_SECONDS) hands it to another.
SYNC_HEARTBEAT_SECONDS = env.float("SYNC_HEARTBEAT_SECONDS", default=5.0)
SYNC_STEP_STALE_SECONDS = env.int("SYNC_STEP_STALE_SECONDS", default=30)
SYNC_SWEEP_SECONDS = env.int("SYNC_SWEEP_SECONDS", default=10)
# A step queued this long without starting, while the broker holds no message for it, was lost
# (a broker restarted without its messages) and is queued again.
SYNC_STEP_LOST_SECONDS = env.int("SYNC_STEP_LOST_SECONDS", default=60)
SYNC_NIGHTLY_CRONTAB = env.str("SYNC_NIGHTLY_CRONTAB", default="30 2 * * *")
SYNC_STATUS_REFRESH_MINUTES = env.int("SYNC_STATUS_REFRESH_MINUTES", default=30)

# Outbox of writes to the provider (docs/resilience.md): attempts before a row is marked
# failed, the first retry delay (doubling each time); how long a sending worker may give no
# sign of life before another takes its row up (above one request's connect and read timeouts
# and the longest wait for a rate-limit slot: a check says so); how long after a request left
# its absence from the provider's state proves it did not arrive; how often the sweep queues
# the sends due, how many at most each time, and after how long a queued send whose task has
# not run is presumed lost (a broker restarted without its messages) and queued again.
OUTBOX_MAX_ATTEMPTS = env.int("OUTBOX_MAX_ATTEMPTS", default=8)
OUTBOX_RETRY_BASE_SECONDS = env.int("OUTBOX_RETRY_BASE_SECONDS", default=30)
OUTBOX_SENDING_STALE_SECONDS = env.int("OUTBOX_SENDING_STALE_SECONDS", default=60)
OUTBOX_IN_FLIGHT_SECONDS = env.int(
    "OUTBOX_IN_FLIGHT_SECONDS",
    default=int(PROVIDER_CONNECT_TIMEOUT + PROVIDER_READ_TIMEOUT) + 15)
OUTBOX_SWEEP_SECONDS = env.int("OUTBOX_SWEEP_SECONDS", default=10)
OUTBOX_SWEEP_BATCH = env.int("OUTBOX_SWEEP_BATCH", default=200)
OUTBOX_REQUEUE_SECONDS = env.int("OUTBOX_REQUEUE_SECONDS", default=120)
# How often the bulk changes and provider events are swept for a step that is due.
SWEEP_SECONDS = env.int("SWEEP_SECONDS", default=60)
# The provider's clock may differ from ours by up to this much: a listing's "last updated"
# moment earlier than a request by more than this proves the request did not arrive.
OUTBOX_PROVIDER_CLOCK_SKEW_SECONDS = env.int("OUTBOX_PROVIDER_CLOCK_SKEW_SECONDS", default=60)

# Bulk changes: how long a wave waits for its locations' directory statuses to be read again
# (when the change asks for it) before the change pauses, and how many waves whose locations
# were all skipped one step may go through.
BULK_STATUS_WAIT_SECONDS = env.int("BULK_STATUS_WAIT_SECONDS", default=900)
BULK_MAX_WAVES_PER_STEP = 100
# The largest listings file an import reads (docs/listing-files.md).
LISTING_IMPORT_MAX_BYTES = env.int("LISTING_IMPORT_MAX_BYTES", default=5 * 1024 * 1024)

# Report schedules: how often the beat looks for schedules due (a report goes at most this
# late), attempts at sending one before it is marked failed, and the first retry delay
# (doubling each time).
REPORTS_DUE_SECONDS = env.int("REPORTS_DUE_SECONDS", default=300)
REPORTS_MAX_ATTEMPTS = env.int("REPORTS_MAX_ATTEMPTS", default=5)
REPORTS_RETRY_BASE_SECONDS = env.int("REPORTS_RETRY_BASE_SECONDS", default=60)

# Celery. Without a broker URL, kombu's filesystem transport under data/ needs no server.
# The filesystem transport ignores the host, but kombu warns "No hostname was supplied" in
# every process that sends or receives when the URL names none.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="") or "filesystem://localhost/"
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = DATA_DIR / "broker"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
elif CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # A task a dead worker held comes back to another worker after this long (kombu's default
    # is an hour). It must stay above the longest task, or a task still running is handed out
    # twice: sync steps take seconds to a few minutes, retry countdowns at most 300 s.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT_SECONDS", default=900),
    }
# Every task's time limits, in seconds. At the soft limit a task gets SoftTimeLimitExceeded
# and can retry; at the hard one its worker process is killed. The hard limit must stay below
# the visibility timeout, or a task still running is handed to a second worker (portal.checks
# and the worker refuse it). A sync step or a change sent to the provider takes seconds to a few
# minutes; the tree walk of a large account is the longest.
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=600)
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=660)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")
CELERY_TIMEZONE = TIME_ZONE


def _crontab(expression: str):
    from celery.schedules import crontab

    minute, hour, day_of_month, month_of_year, day_of_week = expression.split()
    return crontab(minute=minute, hour=hour, day_of_month=day_of_month,
                   month_of_year=month_of_year, day_of_week=day_of_week)


CELERY_BEAT_SCHEDULE = {
    "nightly-full-sync": {
        "task": "sync.tasks.sync_all_resellers_task",
        "schedule": _crontab(SYNC_NIGHTLY_CRONTAB),
    },
    "outbox-sweep": {
        "task": "outbox.tasks.outbox_sweep_task",
        "schedule": float(OUTBOX_SWEEP_SECONDS),
    },
    "listing-status-refresh": {
        "task": "sync.tasks.sync_all_resellers_task",
        "schedule": SYNC_STATUS_REFRESH_MINUTES * 60.0,
        "kwargs": {"resources": ["listing_status"]},
    },
    "sync-sweep": {
        "task": "sync.tasks.sync_sweep_task",
        "schedule": float(SYNC_SWEEP_SECONDS),
    },
    "bulk-changes-sweep": {
        "task": "bulk.tasks.bulk_changes_sweep_task",
        "schedule": float(SWEEP_SECONDS),
    },
    "provider-events-sweep": {
        "task": "events.tasks.provider_event_sweep_task",
        "schedule": float(SWEEP_SECONDS),
    },
    # Late in the day: each reseller's day gets its history row (a day without a sync too),
    # and days older than the retention go.
    "history-daily": {
        "task": "history.tasks.history_daily_task",
        "schedule": _crontab("50 23 * * *"),
    },
    # Every hour: the alert rules of each reseller (a day without a sync too), emails left
    # unsent, and the daily digest of the members whose digest hour it is.
    "alerts-hourly": {
        "task": "alerts.tasks.alerts_hourly_task",
        "schedule": _crontab("5 * * * *"),
    },
    # The report schedules whose day and hour have come, in each reseller's time zone.
    "report-schedules-due": {
        "task": "reports.tasks.report_schedules_due_task",
        "schedule": float(REPORTS_DUE_SECONDS),
    },
}
if SANDBOX_ENABLED:
    # The sandbox's own clock: listing statuses move and webhook events go out on time.
    CELERY_BEAT_SCHEDULE["sandbox-tick"] = {
        "task": "sandbox.tasks.sandbox_tick_task",
        "schedule": float(env.int("SANDBOX_TICK_SECONDS", default=15)),
    }

LOG_LEVEL = env.str("LOG_LEVEL", default="INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"redact_secrets": {"()": "portal.logging.RedactSecretsFilter"}},
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["redact_secrets"],
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {"django.db.backends": {"level": "INFO"}},
}
# The development server's line per request. `make demo` turns it off: the first sync alone
# makes about a thousand requests to the embedded sandbox, and its events arrive every few
# seconds. Failed requests (5xx) are still logged.
ACCESS_LOG = env.bool("ACCESS_LOG", default=True)
if not ACCESS_LOG:
    LOGGING["loggers"]["django.server"] = {"level": "ERROR", "handlers": ["console"],
                                           "propagate": False}
# Error reports hide every value whose name looks secret (api_key, token, password...) and the
# password of every URL with credentials.
DEFAULT_EXCEPTION_REPORTER_FILTER = "portal.logging.RedactingExceptionReporterFilter"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.api.auth.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_PAGINATION_CLASS": "portal.api.base.LimitOffset",
    # JSON in, JSON out: a body is JSON (a view that takes a file upload, the brand's logo,
    # names multipart itself), and every answer is JSON unless the operation's reply is a file.
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # Groups operations by resource and keeps developers' docstrings out of the reference.
    "DEFAULT_SCHEMA_CLASS": "portal.api.schema.PortalAutoSchema",
    "EXCEPTION_HANDLER": "portal.api.errors.api_exception_handler",
    "DEFAULT_THROTTLE_RATES": {"api": env.str("API_THROTTLE_RATE", default="600/min")},
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Reseller portal API",
    "DESCRIPTION": (
        "The API of the reseller portal, for agencies' own software. Every resource of a "
        "reseller lives under `/api/v1/t/{slug}/`. Authenticate with a personal API token: "
        "`Authorization: Bearer <token>` (create one under API tokens in the portal, or with "
        "`manage.py apitoken_create`). Errors are always `{code, message, fields}`, with "
        "`provider_code` when the provider refused something. Lists take `limit` and "
        "`offset`; POSTs that create accept an `Idempotency-Key` header."
    ),
    "VERSION": "1.0.0",
    # 3.1: nullability as JSON Schema says it (`type: [..., "null"]`, `oneOf` with null), which
    # validators and client generators read alike.
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Operation ids (and so a generated client's function names) after the tenant prefix:
    # `businesses_list`, not `t_businesses_list`.
    "SCHEMA_PATH_PREFIX": r"/api/v1/t/\{slug\}",
    # Several models have a `state`; each choice set gets its own name in the schema.
    "ENUM_NAME_OVERRIDES": {
        "ChangeStateEnum": "outbox.models.OutboxEntry.State",
        "ProviderEventStateEnum": "events.models.ProviderEvent.State",
        # A subscription's one event and a new one's several share the provider's event names.
        "EventNameEnum": "listings.forms.EVENT_NAMES",
        "AlertKindEnum": "alerts.kinds.Kind",
        # Every kind's preference takes one of the same channels.
        "NotificationChannelEnum": "alerts.kinds.Channel",
        "BulkChangeStateEnum": "bulk.models.BulkChange.State",
        "BulkChangeItemStateEnum": "bulk.models.BulkChangeItem.State",
        "ListingImportStateEnum": "bulk.api.file_serializers.IMPORT_STATES",
        "ReportFrequencyEnum": "reports.models.Frequency",
        "ReportPeriodEnum": "reports.selectors.PRESETS",
        "SentReportStateEnum": "reports.models.SentReport.State",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "portal.api.replies.document_replies",
        "portal.api.schema.nullable_as_json_schema",
        "portal.api.schema.add_tag_descriptions",
    ],
}

# Content Security Policy: everything from the portal's own origin, no inline script or style
# (pages use static files and classes; SVG charts use presentation attributes), images also as
# data: URIs (Swagger UI's icons), no framing, forms post only to the portal.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    },
}

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"

if PRODUCTION:
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=True)
    if BEHIND_TLS_PROXY:
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
