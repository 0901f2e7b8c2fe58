"""Settings, all from the environment (docs/operations.md, "Configuration")."""

import os
import tempfile
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "development-only-secret-key-do-not-use-in-production"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")
ALLOW_SIGNUP = env_bool("ALLOW_SIGNUP", True)
# Notifications go only to https addresses on the public internet (campaign/notify/ssrf.py). On: http, private and
# loopback addresses too, and a Discord hook at any address: development and tests, with local fakes.
HOOKS_ALLOW_PRIVATE = env_bool("HOOKS_ALLOW_PRIVATE", False)
# How many proxies of ours stand in front of the server and append the client's address to X-Forwarded-For. 0: the
# peer's address is the client's, and the header is ignored (a client could otherwise name any address it likes and
# never be throttled).
TRUSTED_PROXIES = int(os.environ.get("TRUSTED_PROXIES", "0"))
if TRUSTED_PROXIES < 0:
    raise ImproperlyConfigured(f"TRUSTED_PROXIES: expected 0 or more, got {TRUSTED_PROXIES}")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "django_htmx",
    "template_partials",
    "campaign",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Before whitenoise, so that what it serves carries the policy too (an SVG or HTML file opened on its own).
    "campaign.http.middleware.ContentSecurityPolicy",  # django-csp's CSPMiddleware, its policy built once
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # After whitenoise (static files come precompressed from it), before every middleware that writes the body.
    # HTML with CSRF tokens compressed: BREACH is answered by Django's own mitigations (docs/PERFORMANCE.md).
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "campaign.http.middleware.ServicesDown",
    "campaign.http.middleware.AnswerBeforeCommit",
]

ROOT_URLCONF = "campaign.urls"
WSGI_APPLICATION = "campaign.wsgi.application"

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
            ],
        },
    }
]

# The ledger's speed tricks (campaign/ledger/fast.py) switched to their plain Django ORM ways: `1` all of them, or
# some by name, comma-separated (the bench measures each so); empty or `0` none. The plain path writes and answers
# the same: CI runs the event-store and action tests on it too (`make test-plain-orm`).
_plain_orm = os.environ.get("LEDGER_PLAIN_ORM", "").strip().lower()
if _plain_orm in ("", "0", "off", "no", "false"):
    LEDGER_PLAIN_ORM: frozenset[str] = frozenset()
elif _plain_orm in ("1", "on", "yes", "true", "all"):
    LEDGER_PLAIN_ORM = frozenset({"all"})
else:
    LEDGER_PLAIN_ORM = frozenset(name.strip() for name in _plain_orm.split(",") if name.strip())


def ledger_trick(name: str) -> bool:
    """Whether the speed trick `name` runs (not switched to its plain way by LEDGER_PLAIN_ORM), for the two that
    settings choose: the database backends."""
    return not LEDGER_PLAIN_ORM & {"all", name}


# Persistent connections: opening one (and, on SQLite, running its PRAGMAs) on every request costs more than a read.
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}", conn_max_age=60, conn_health_checks=True
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Server-side parameters, and psycopg's own threshold for preparing a statement a connection repeats (every
    # action runs the same few): PostgreSQL then skips parsing and planning them. Django turns preparing off unless
    # told, for the sake of transaction-mode connection poolers (PgBouncer); DATABASE_PREPARE_THRESHOLD=off does too.
    prepare = os.environ.get("DATABASE_PREPARE_THRESHOLD", "5").strip().lower()
    if prepare in ("", "off", "none", "false", "no"):
        threshold = None
    elif prepare.isdigit() and int(prepare) > 0:
        threshold = int(prepare)
    else:
        raise ImproperlyConfigured(
            f"DATABASE_PREPARE_THRESHOLD: expected a whole number above 0 or off, got {prepare!r}"
        )
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        server_side_binding=True, prepare_threshold=threshold
    )
    if ledger_trick("postgres_begin"):
        # Django's backend, with each transaction's BEGIN sent with its first statement (campaign/ledger/backends).
        DATABASES["default"]["ENGINE"] = "campaign.ledger.backends.postgresql"
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers run beside the writer; IMMEDIATE makes concurrent writers queue instead of failing with
    # "database is locked" half-way through a transaction.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    if ledger_trick("sqlite_transactions"):
        # Django's backend, with BEGIN and COMMIT sent straight to the driver (campaign/ledger/backends).
        DATABASES["default"]["ENGINE"] = "campaign.ledger.backends.sqlite3"
    # A file, not memory: threads and worker processes in the tests must share it. One per test process, so
    # that parallel runs never share a database.
    DATABASES["default"]["TEST"] = {
        "NAME": os.environ.get("TEST_SQLITE_NAME")
        or str(Path(tempfile.gettempdir()) / f"wl-test-{os.getpid()}.sqlite3")
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Every password check counts failed log-ins per user name and address, per address, and per user name from
# anywhere (campaign/http/throttles.py; docs/security.md, "Log-ins").
AUTHENTICATION_BACKENDS = ["campaign.http.throttles.ThrottledModelBackend"]


def env_int(name: str, default: int, minimum: int = 1) -> int:
    raw = os.environ.get(name, "").strip() or str(default)
    if not raw.isdigit() or int(raw) < minimum:
        raise ImproperlyConfigured(f"{name}: expected a whole number of at least {minimum}, got {raw!r}")
    return int(raw)


LOGIN_WINDOW_SECONDS = env_int("LOGIN_WINDOW_SECONDS", 900)
LOGIN_FAILURES_PER_PAIR = env_int("LOGIN_FAILURES_PER_PAIR", 5)
LOGIN_FAILURES_PER_ADDRESS = env_int("LOGIN_FAILURES_PER_ADDRESS", 20)
LOGIN_FAILURES_BEFORE_DELAY = env_int("LOGIN_FAILURES_BEFORE_DELAY", 10)
LOGIN_DELAY_MAX_SECONDS = env_int("LOGIN_DELAY_MAX_SECONDS", 120)
if 2 * LOGIN_FAILURES_PER_PAIR > LOGIN_FAILURES_BEFORE_DELAY:
    # A window of the user name's count meets at most two of one pairing's: one address must never slow the name.
    raise ImproperlyConfigured(
        "LOGIN_FAILURES_BEFORE_DELAY: expected at least twice LOGIN_FAILURES_PER_PAIR"
        f" ({2 * LOGIN_FAILURES_PER_PAIR}), got {LOGIN_FAILURES_BEFORE_DELAY}"
    )

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")  # collectstatic writes here
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
FILE_UPLOAD_MAX_MEMORY_SIZE = 20 * 1024 * 1024
# The largest export an import takes (docs/security.md, "Import"): its bytes, kept in the import's job row until written,
# and its events, every one checked within the request before the 202 (about 400 bytes and 60 us each).
IMPORT_MAX_BYTES = int(os.environ.get("IMPORT_MAX_BYTES", str(128 * 1024 * 1024)))
IMPORT_MAX_LINES = int(os.environ.get("IMPORT_MAX_LINES", "300000"))
# Lines of an export an import writes per transaction (campaign/transfer/importing.py, BATCH; docs/clock.md, "Faults").
IMPORT_LINES_PER_TRANSACTION = int(os.environ.get("IMPORT_LINES_PER_TRANSACTION", "50000"))

# What one user may create (docs/security.md, "What one user may create"): a rate per user ("N/hour", as DRF's
# throttles) and a total. Past a rate a 429 saying when to try again, past a total a 400; the API and pages alike.
RATE_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86_400}


def env_rate(name: str, default: str) -> tuple[int, int]:
    """A rate setting as (how many, in seconds): "10/hour", "30/min", "300/day"."""
    raw = os.environ.get(name, "").strip() or default
    count, _, period = raw.partition("/")
    if not count.isdigit() or int(count) < 1 or period[:1] not in RATE_PERIODS:
        raise ImproperlyConfigured(
            f"{name}: expected a rate such as 10/hour (per second, minute, hour or day), got {raw!r}"
        )
    return int(count), RATE_PERIODS[period[0]]


CAMPAIGN_RATE = env_rate("CAMPAIGN_THROTTLE", "10/hour")
CAMPAIGNS_PER_USER = env_int("CAMPAIGNS_PER_USER", 100)
INVITATION_RATE = env_rate("INVITATION_THROTTLE", "30/hour")
PENDING_INVITATIONS_PER_USER = env_int("PENDING_INVITATIONS_PER_USER", 100)
CHARACTER_RATE = env_rate("CHARACTER_THROTTLE", "300/hour")
NPC_BATCH_RATE = env_rate("NPC_BATCH_THROTTLE", "60/hour")
CHARACTERS_PER_CAMPAIGN = env_int("CHARACTERS_PER_CAMPAIGN", 500)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "campaign.api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PARSER_CLASSES": [
        "campaign.api.parsers.StrictJSONParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "EXCEPTION_HANDLER": "campaign.api.errors.exception_handler",
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "campaign.api.negotiation.ContentNegotiation",
    "DEFAULT_THROTTLE_RATES": {
        "login": os.environ.get("LOGIN_THROTTLE", "20/min"),
        "signup": os.environ.get("SIGNUP_THROTTLE", "20/hour"),
        "forecast": os.environ.get("FORECAST_THROTTLE", "60/min"),
    },
    "NUM_PROXIES": TRUSTED_PROXIES,
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

# The forecast's budget (campaign/forecast/forecast_budget.py, docs/forecast.md "Budget"): wall seconds a forecast may take
# before it answers with the futures done; CPU seconds of forecasts per user and minute; how long a lease outlives
# a worker that died mid-forecast; forecasts at once on the whole server (0: no limit); a player's most futures.
FORECAST_TIME_BOX = float(os.environ.get("FORECAST_TIME_BOX", "1"))
FORECAST_BUDGET = float(os.environ.get("FORECAST_BUDGET", "5"))
FORECAST_LEASE_SECONDS = int(os.environ.get("FORECAST_LEASE_SECONDS", "10"))
FORECAST_AT_ONCE = int(os.environ.get("FORECAST_AT_ONCE", "1"))
FORECAST_PLAYER_MAX_RUNS = int(os.environ.get("FORECAST_PLAYER_MAX_RUNS", "1000"))

SPECTACULAR_SETTINGS = {
    "TITLE": "Wound Ledger API",
    "DESCRIPTION": "Event-sourced injury and recovery tracking for Shadowrun 2, Cyberpunk 2020 and Dark Future.\n\n"
    "Collections: a bounded collection (rulesets, campaigns, characters, members, invitations) is a bare JSON array; "
    "an ordered log (a character's history, a campaign's feed) is a page in an envelope with its cursor. Errors: "
    "400/409 `{field: [sentence]}`, 401/403/404 `{detail}`, 422 `{needs_roll}`, 429 with Retry-After, 503. "
    "See docs/api.md.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "PATH_CONVERTER_OVERRIDES": {"id": int},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "campaign.api.answers.add_components",
        "campaign.api.answers.add_retry_after",
        # The rulesets' campaign options and character attributes, typed by their declarations.
        "campaign.api.option_schema.add_components",
        "campaign.api.push_schema.add_components",
    ],
    # Swagger UI from our own static files (drf-spectacular-sidecar, a pinned version), never from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Swagger UI's default sends every schema URL to validator.swagger.io (an image in the page's corner).
    "SWAGGER_UI_SETTINGS": {"validatorUrl": None},
}

# Content-Security-Policy on every answer (django-csp 4): only our own scripts, styles and requests. The pages keep
# no inline script or style (htmx's own indicator <style> and eval are off in base.html's htmx-config), so neither
# 'unsafe-inline' nor nonces are needed. Django's debug pages (404 and 500 with DEBUG on) go without it.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
        "base-uri": [SELF],
        "object-src": [NONE],
    }
}

# The default cache holds the log-in throttles (the page's and the API's). With several server processes it must be
# one they share (CACHE_URL, Redis): in each process's own memory, each would keep its own count of failed log-ins.
CACHE_URL = os.environ.get("CACHE_URL", "")
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}
        if CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    ),
    # Rendered reads (the character page's live region, the character API's answer), per process. Keys hold the
    # character's version, the campaign's game time and version, the viewer's role and user: any new event, clock
    # advance or undo makes a new key, so an entry is never stale; old ones age out (TIMEOUT, MAX_ENTRIES). Every
    # request reads those numbers from the database, so a write by another process, on this host or another, is a
    # new key at once: nothing is shared, nothing is told (tests/edge/test_two_processes.py; docs/scaling.md).
    "pages": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "pages",
        "TIMEOUT": 300,
        "OPTIONS": {"MAX_ENTRIES": 5000},
    },
}

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {"visibility_timeout": 3600, "max_retries": 1}
# Every broker key under this prefix: several deployments (or test runs) can share one Redis without sharing a queue.
if os.environ.get("CELERY_BROKER_PREFIX"):
    CELERY_BROKER_TRANSPORT_OPTIONS["global_keyprefix"] = os.environ["CELERY_BROKER_PREFIX"]
# Timer firings per clock transaction: larger batches advance faster, smaller ones report progress more often.
CLOCK_FIRINGS_PER_TRANSACTION = int(os.environ.get("CLOCK_FIRINGS_PER_TRANSACTION", "200"))
# Bounds on one advance's work and how a worker shares itself between campaigns (docs/clock.md, "Limits").
# One advance covers at most this many years of one injured character's clock (characters x years), or it is a 400.
CLOCK_MAX_CHARACTER_YEARS = int(os.environ.get("CLOCK_MAX_CHARACTER_YEARS", "2000"))
# An advance that has fired this many timers stops at the game second it reached; the GM advances again to go on.
CLOCK_MAX_FIRINGS_PER_ADVANCE = int(os.environ.get("CLOCK_MAX_FIRINGS_PER_ADVANCE", "50000"))
# A worker spends about this long on one job, then sends it to the back of the queue (other campaigns go between).
CLOCK_SLICE_SECONDS = float(os.environ.get("CLOCK_SLICE_SECONDS", "0.5"))
# An open job nothing has touched for this long is shown as stalled, and Celery beat resends it.
CLOCK_STALLED_AFTER_SECONDS = int(os.environ.get("CLOCK_STALLED_AFTER_SECONDS", "30"))
# A job (advance or import) that meets a database fault tries its slice again after this long, doubled at each try up
# to the maximum, for as long as the fault lasts (docs/clock.md, "Faults").
JOB_RETRY_FIRST_SECONDS = float(os.environ.get("JOB_RETRY_FIRST_SECONDS", "1"))
JOB_RETRY_MAX_SECONDS = float(os.environ.get("JOB_RETRY_MAX_SECONDS", "60"))
CELERY_BEAT_SCHEDULE = {
    "run-campaign-clocks": {"task": "campaign.tasks.tick_running_clocks", "schedule": 5.0},
    "resume-stalled-jobs": {"task": "campaign.tasks.resume_stalled_jobs", "schedule": 30.0},
}

# Web Push to players' phones (docs/notifications.md): the server's VAPID key pair, base64url (the public key an
# uncompressed P-256 point, the private key its 32-byte scalar; `manage.py vapid_keys` makes a pair). Unset: push is
# off, and the pages offer no opt-in. The subject is who the push services write to about this server.
VAPID_PUBLIC_KEY = os.environ.get("VAPID_PUBLIC_KEY", "").strip()
VAPID_PRIVATE_KEY = os.environ.get("VAPID_PRIVATE_KEY", "").strip()
VAPID_SUBJECT = os.environ.get("VAPID_SUBJECT", "").strip()
if bool(VAPID_PUBLIC_KEY) != bool(VAPID_PRIVATE_KEY):
    raise ImproperlyConfigured(
        "VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY: set both (manage.py vapid_keys) or neither"
    )
if VAPID_PRIVATE_KEY and not VAPID_SUBJECT.startswith(("mailto:", "https://")):
    raise ImproperlyConfigured(
        f"VAPID_SUBJECT: expected a mailto: or https:// address, got {VAPID_SUBJECT!r}"
    )
# How long a push service keeps a message for a phone that is off: news older than this is not worth waking it for.
PUSH_TTL_SECONDS = env_int("PUSH_TTL_SECONDS", 86_400)

# The live regions' polls (static/js/poll.js; docs/web.md, "Polling only when someone looks"): every POLL_SECONDS
# while someone looks, at most once every POLL_IDLE_SECONDS once nobody has touched the page for
# POLL_IDLE_AFTER_SECONDS, never while the tab is hidden. Not from the environment: the browser tests shorten them.
POLL_SECONDS = 2
POLL_IDLE_AFTER_SECONDS = 300
POLL_IDLE_SECONDS = 60

if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
    # A load balancer's health checks come over plain HTTP from inside: answered, not redirected.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0"))
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
