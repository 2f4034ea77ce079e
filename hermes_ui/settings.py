"""Django settings for Hermes UI, read from the environment with strict parsing."""

import importlib.util
import os
from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from hermes_ui import backends
from hermes_ui.endpoints import parse_endpoints
from hermes_ui.env import (
    env_addresses,
    env_bool,
    env_float,
    env_int,
    env_list,
    env_str,
    env_url,
)
from hermes_ui.private_files import private_dir, read_or_create, restrict_umask

# Files this process creates are its user's only (SQLite makes its database
# 0644). Here, because the settings module is the dashboard's first code that
# every process runs, before it creates any file: manage.py, ``python -m
# django`` (the index refresher), uvicorn workers (hermes_ui.asgi) and pytest.
restrict_umask()

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(env_str("HERMES_UI_DATA_DIR", str(BASE_DIR / "data")))
# The database, the secret key and the demo logins live here: owner only.
private_dir(DATA_DIR)

DEBUG = env_bool("DJANGO_DEBUG", False)
# Production behind TLS: HSTS, secure cookies, SSL redirect, a required secret key.
SECURE = env_bool("DJANGO_SECURE", False)
SECRET_KEY = env_str("DJANGO_SECRET_KEY")
if not SECRET_KEY:
    if SECURE or (not DEBUG and env_bool("HERMES_UI_REQUIRE_SECRET_KEY", False)):
        raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set")
    # A per-installation key kept in the data folder, so the demo and tests
    # work on a fresh clone without a secret committed to the repository.
    import secrets

    SECRET_KEY = read_or_create(DATA_DIR / "secret_key", lambda: secrets.token_urlsafe(50))

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.forms",  # its widget templates, for the TemplatesSetting form renderer
    "django_htmx",
    "template_partials",
    "csp",
    "axes",
    "hermes_ui",
    "hermes_ui.web",
    "hermes_ui.sessions",
    "hermes_ui.audit",
    "hermes_ui.index",
    "hermes_ui.lineage_page",
    "hermes_ui.changes",
    "hermes_ui.chat",
    "hermes_ui.deletion",
    "hermes_ui.compare",
    "hermes_ui.export",
    "hermes_ui.endpoint_status",
    "hermes_ui.verification",
    "hermes_ui.jobs",
    "hermes_ui.review",
    "hermes_ui.usage",
    "hermes_ui.tags",
    "hermes_ui.saved_views",
    "hermes_ui.watermarks",
    "hermes_ui.live",
]
# The demo peer and benchmarks live beside the app, not in it: present in a
# checkout (``make run``, ``make test``, ``make bench``), absent when installed.
if importlib.util.find_spec("devtools") is not None:
    INSTALLED_APPS.append("devtools")

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "hermes_ui.web.database.DatabaseOutageMiddleware",
    "hermes_ui.web.deadline.page_deadline",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "hermes_ui.web.roles.LoginRequiredMiddleware",
    "hermes_ui.web.roles.RoleRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes requires: it turns a lockout into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "hermes_ui.urls"
ASGI_APPLICATION = "hermes_ui.asgi.application"
WSGI_APPLICATION = "hermes_ui.wsgi.application"
# Pages one worker process serves at once, on a pool of this many threads (see
# hermes_ui/asgi.py); further requests wait their turn in the event loop. A few
# overlap pages that wait on Hermes; dozens only fight over the GIL.
HERMES_UI_VIEW_THREADS = env_int("HERMES_UI_VIEW_THREADS", 4, minimum=1)
# A page's request body must arrive within this many seconds (it is read before
# the page takes a thread); its size is bounded by DATA_UPLOAD_MAX_MEMORY_SIZE.
HERMES_UI_BODY_SECONDS = env_float("HERMES_UI_BODY_SECONDS", 10.0, minimum=0.5)

# Fields render through templates/partials/field.html ({{ field.as_field_group }}).
FORM_RENDERER = "hermes_ui.form_rendering.HermesFormRenderer"

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
                "hermes_ui.web.context.navigation",
            ],
        },
    }
]

# How long a page waits for the database before answering 503 (pool wait on
# PostgreSQL, connect timeout), so an outage costs seconds, not a hung page.
HERMES_UI_DB_WAIT_SECONDS = env_float("HERMES_UI_DB_WAIT_SECONDS", 2.0, minimum=0.5)

# SQLite in the data folder by default; DATABASE_URL selects PostgreSQL.
DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    # Open connections each worker process keeps to PostgreSQL (at most): one per
    # page lane, and a few for the chat relay's writer and the other threads.
    pool_size = env_int("HERMES_UI_DB_POOL_SIZE", HERMES_UI_VIEW_THREADS + 4, minimum=1)
    DATABASES = {
        "default": backends.postgres_database(
            DATABASE_URL, pool_size=pool_size, wait=HERMES_UI_DB_WAIT_SECONDS
        )
    }
else:
    DATABASES = {
        "default": backends.sqlite_database(
            env_str("HERMES_UI_DB", str(DATA_DIR / "hermes_ui.sqlite3")),
            str(DATA_DIR / f"test_hermes_ui_{os.getpid()}.sqlite3"),
        )
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Process memory by default; REDIS_URL shares the transcript and lineage
# caches (and the chat relay's event streams) between worker processes.
REDIS_URL = env_str("REDIS_URL")
CACHES = backends.caches(REDIS_URL)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"django.contrib.auth.password_validation.{name}"}
    for name in (
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    )
]
# django-axes counts failed logins first; ModelBackend then checks the password.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("HERMES_UI_LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("HERMES_UI_LOGIN_COOLOFF_MINUTES", 15, minimum=1))
# One person mistyping from one address is locked out; nobody else is. An
# address spraying passwords over many usernames is locked at a higher limit,
# whatever the username (hermes_ui.web.login_limits: axes compares every
# combination with one AXES_FAILURE_LIMIT, the handler gives each its own).
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], ["ip_address"]]
HERMES_UI_LOGIN_ADDRESS_FAILURE_LIMIT = env_int("HERMES_UI_LOGIN_ADDRESS_FAILURE_LIMIT", 20)
if HERMES_UI_LOGIN_ADDRESS_FAILURE_LIMIT <= AXES_FAILURE_LIMIT:
    raise ImproperlyConfigured(
        f"HERMES_UI_LOGIN_ADDRESS_FAILURE_LIMIT ({HERMES_UI_LOGIN_ADDRESS_FAILURE_LIMIT}) must be "
        f"higher than HERMES_UI_LOGIN_FAILURE_LIMIT ({AXES_FAILURE_LIMIT}): otherwise one "
        "person's mistakes lock everyone behind the same address"
    )
AXES_HANDLER = "hermes_ui.web.login_limits.LoginLimitsHandler"
AXES_RESET_ON_SUCCESS = True
# The reverse proxies whose X-Forwarded-For uvicorn believes (--forwarded-allow-ips,
# passed by hermes_ui.serving): REMOTE_ADDR, the address axes counts, is then the
# client's. django-ipware is not installed, so axes reads REMOTE_ADDR only.
HERMES_UI_TRUSTED_PROXIES = env_addresses("HERMES_UI_TRUSTED_PROXIES", ["127.0.0.1", "::1"])
AXES_LOCKOUT_CALLABLE = "hermes_ui.web.lockout.locked_out"
AXES_SENSITIVE_PARAMETERS = ["password"]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_AGE = env_int("DJANGO_SESSION_COOKIE_AGE", 8 * 3600, minimum=60)
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "frame-ancestors": ["'none'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
    }
}
if SECURE:
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]  # a load balancer's plain-HTTP probe
    SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 31_536_000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", False)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
# Opt-in, and only behind a proxy that always sets this header itself: otherwise
# a client could claim HTTPS. Value: the header name, e.g. X-Forwarded-Proto.
_PROXY_SSL_HEADER = env_str("DJANGO_SECURE_PROXY_SSL_HEADER")
if _PROXY_SSL_HEADER:
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + _PROXY_SSL_HEADER.upper().replace("-", "_"), "https")

LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TZ_NAME", "UTC")
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = DATA_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# --- Hermes endpoints -----------------------------------------------------
HERMES_ENDPOINT_ID = env_str("HERMES_ENDPOINT_ID", "local")
HERMES_ENDPOINTS = parse_endpoints(
    default_id=HERMES_ENDPOINT_ID,
    url=env_url("HERMES_API_URL"),
    key=env_str("HERMES_API_KEY"),
    extra=env_list("HERMES_EXTRA_ENDPOINTS", []),
    env=dict(os.environ),
)
# Per-operation timeouts from the contract: 30 s for JSON operations, 300 s
# for a non-streaming chat turn, 300 s for the whole stream.
HERMES_JSON_TIMEOUT = env_float("HERMES_JSON_TIMEOUT", 30.0, minimum=0.1)
HERMES_CHAT_TIMEOUT = env_float("HERMES_CHAT_TIMEOUT", 300.0, minimum=0.1)
HERMES_STREAM_TIMEOUT = env_float("HERMES_STREAM_TIMEOUT", 300.0, minimum=0.1)
HERMES_CONNECT_TIMEOUT = env_float("HERMES_CONNECT_TIMEOUT", 5.0, minimum=0.1)
HERMES_READ_RETRIES = env_int("HERMES_READ_RETRIES", 2, minimum=0, maximum=5)
# All of one page's Hermes calls, retries included, end within this many seconds
# (see hermes_ui/hermes/deadline.py).
HERMES_PAGE_DEADLINE = env_float("HERMES_PAGE_DEADLINE", 10.0, minimum=0.5)
# Calls one worker may have in flight to one endpoint (see hermes_ui/hermes/bulkhead.py),
# and how long a call over that waits for a slot before answering 503.
HERMES_BULKHEAD = env_int("HERMES_BULKHEAD", max(1, HERMES_UI_VIEW_THREADS // 2), minimum=1)
HERMES_BULKHEAD_WAIT = env_float("HERMES_BULKHEAD_WAIT", 0.5, minimum=0.0)
# Consecutive timeouts or connection failures that open an endpoint's breaker, and
# how often an open breaker lets one trial call through (hermes_ui/hermes/breaker.py).
HERMES_BREAKER_FAILURES = env_int("HERMES_BREAKER_FAILURES", 3, minimum=1)
HERMES_BREAKER_RETRY_SECONDS = env_float("HERMES_BREAKER_RETRY_SECONDS", 10.0, minimum=0.5)
# The endpoints page probes every endpoint at once, each with this timeout
# and no retry, so one server that is down costs seconds, not the page.
HERMES_PROBE_TIMEOUT = env_float("HERMES_PROBE_TIMEOUT", 3.0, minimum=0.1)
# Viewing that page asks an endpoint again only when its last answer is older
# than this; "Probe now" (a POST) asks at once.
HERMES_PROBE_CACHE_SECONDS = env_int("HERMES_PROBE_CACHE_SECONDS", 30, minimum=1, maximum=3600)
# How many sessions one bulk action (or "select all matching") may cover.
HERMES_BULK_LIMIT = env_int("HERMES_BULK_LIMIT", 500, minimum=1, maximum=5000)
# How long opening a review item keeps it for that reviewer (others are given other items).
HERMES_REVIEW_RESERVATION_SECONDS = env_int(
    "HERMES_REVIEW_RESERVATION_SECONDS", 600, minimum=10, maximum=86400
)
# Threads per worker process that run long work off the page request (bulk
# close, filing a bulk deletion, a batch review, a chat turn without
# JavaScript); more jobs wait their turn (see hermes_ui/jobs/runner.py).
HERMES_UI_JOB_THREADS = env_int("HERMES_UI_JOB_THREADS", 4, minimum=1, maximum=64)
HERMES_LIST_PAGE_SIZE = env_int("HERMES_LIST_PAGE_SIZE", 50, minimum=1, maximum=200)
HERMES_MESSAGES_PAGE_SIZE = env_int("HERMES_MESSAGES_PAGE_SIZE", 100, minimum=10, maximum=2000)

# --- Session index and lineage (see hermes_ui/index/sync.py) ----------------
# The web process refreshes the index every N seconds (0: never; the
# refresher only starts under the real ASGI server, not in tests or commands).
HERMES_INDEX_REFRESH_SECONDS = env_int("HERMES_INDEX_REFRESH_SECONDS", 60, minimum=0)
# Live updates (hermes_ui/live): how often the refresher re-reads a watched endpoint's
# first list page, and the event streams one worker serves before browsers poll instead.
HERMES_UI_LIVE_SECONDS = env_float("HERMES_UI_LIVE_SECONDS", 2.0, minimum=0.1)
if not 0.1 <= HERMES_UI_LIVE_SECONDS <= 3600:  # also refuses nan and inf
    raise ImproperlyConfigured(
        f"HERMES_UI_LIVE_SECONDS must be between 0.1 and 3600, got {HERMES_UI_LIVE_SECONDS}"
    )
HERMES_UI_LIVE_MAX_STREAMS = env_int("HERMES_UI_LIVE_MAX_STREAMS", 1000, minimum=0)
HERMES_INDEX_FULL_SWEEP_SECONDS = env_int("HERMES_INDEX_FULL_SWEEP_SECONDS", 900, minimum=30)
# The content index (transcript search, see hermes_ui/index/content.py): off keeps
# no message text at all; reasoning is indexed only on request; tool results
# are cut to this many characters per message.
HERMES_INDEX_CONTENT = env_bool("HERMES_INDEX_CONTENT", True)
HERMES_INDEX_CONTENT_REASONING = env_bool("HERMES_INDEX_CONTENT_REASONING", False)
HERMES_INDEX_TOOL_RESULT_CHARS = env_int("HERMES_INDEX_TOOL_RESULT_CHARS", 2000, minimum=0)
HERMES_LINEAGE_FOLD_DELEGATES = env_int("HERMES_LINEAGE_FOLD_DELEGATES", 5, minimum=1)
HERMES_LINEAGE_MAX_NODES = env_int("HERMES_LINEAGE_MAX_NODES", 400, minimum=10)
HERMES_DOT = env_str("HERMES_DOT")  # path to Graphviz dot; default: dot on PATH
# Chat: events retained per streamed turn (the connector's bound), and whether
# a session with an end reason may still be continued (closure is metadata).
HERMES_CHAT_MAX_EVENTS = env_int("HERMES_CHAT_MAX_EVENTS", 4096, minimum=1, maximum=100_000)
# Caps against runaway streams: running turns per person and overall (refused
# before anything is sent), and bytes per event and per answer (a turn past
# them stops listening and ends "truncated").
HERMES_CHAT_MAX_TURNS_PER_USER = env_int("HERMES_CHAT_MAX_TURNS_PER_USER", 3, minimum=1)
HERMES_CHAT_MAX_TURNS = env_int("HERMES_CHAT_MAX_TURNS", 50, minimum=1)
HERMES_CHAT_MAX_EVENT_BYTES = env_int("HERMES_CHAT_MAX_EVENT_BYTES", 64 * 1024, minimum=1024)
HERMES_CHAT_MAX_ANSWER_BYTES = env_int("HERMES_CHAT_MAX_ANSWER_BYTES", 1024 * 1024, minimum=1024)
HERMES_ALLOW_CHAT_ON_CLOSED = env_bool("HERMES_ALLOW_CHAT_ON_CLOSED", False)
# Exports streaming at once in one worker process: per person, and in total
# (each holds a thread for the whole download; see hermes_ui/web/download_limits.py).
HERMES_UI_EXPORTS_PER_USER = env_int("HERMES_UI_EXPORTS_PER_USER", 2, minimum=1, maximum=100)
HERMES_UI_EXPORTS_PER_PROCESS = env_int("HERMES_UI_EXPORTS_PER_PROCESS", 8, minimum=1, maximum=1000)
# Days a chat turn keeps its text (message, system message, answer, event
# payloads); older turns keep only their metadata (see hermes_ui/chat/retention.py).
HERMES_UI_TURN_RETENTION_DAYS = env_int("HERMES_UI_TURN_RETENTION_DAYS", 30, minimum=1)

# Every Hermes call's line (operation, endpoint, status, milliseconds) at INFO;
# off, they are DEBUG. Failed calls are logged as WARNING either way.
HERMES_UI_LOG_CALLS = env_bool("HERMES_UI_LOG_CALLS", False)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    # Defence in depth: tracebacks lose exception messages, API keys are masked.
    "filters": {"redact": {"()": "hermes_ui.audit.logfilter.RedactingFilter"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["redact"]},
        # Drops what it is given (without one, Python's last-resort handler would
        # print the record, unredacted, to stderr).
        "discard": {"class": "logging.NullHandler", "filters": ["redact"]},
    },
    "root": {"handlers": ["console"], "level": env_str("HERMES_UI_LOG_LEVEL", "INFO")},
    # Django's and uvicorn's loggers keep no handlers of their own (Django's
    # defaults print unredacted tracebacks): every record reaches the root's.
    "loggers": {
        "httpx": {"level": "WARNING"},
        "httpcore": {"level": "WARNING"},
        **{
            name: {"handlers": [], "propagate": True}
            for name in (
                "django",
                "django.server",
                "django.request",
                "django.security",
                "uvicorn",
                "uvicorn.error",
            )
        },
        # No access lines at all: a URL can carry search text (``?q=``), which
        # can be transcript text. uvicorn's --no-access-log alone is undone as
        # soon as this configuration runs inside the worker.
        "uvicorn.access": {"handlers": ["discard"], "propagate": False, "level": "CRITICAL"},
        # django-axes announces itself at INFO on every start; lockouts are WARNING.
        "axes": {"handlers": [], "propagate": True, "level": "WARNING"},
    },
}
