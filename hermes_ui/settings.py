"""Django settings for Hermes UI, read from the environment with strict parsing."""

import importlib.util
import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from hermes_ui.endpoints import parse_endpoints
from hermes_ui.env import env_bool, env_float, env_int, env_list, env_str, env_url

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(env_str("HERMES_UI_DATA_DIR", str(BASE_DIR / "data")))

DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = env_str("DJANGO_SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG and env_bool("HERMES_UI_REQUIRE_SECRET_KEY", False):
        raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set")
    # A per-installation key kept in the data folder, so the demo and tests
    # work on a fresh clone without a secret committed to the repository.
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    _key_file = DATA_DIR / "secret_key"
    if not _key_file.exists():
        import secrets

        _key_file.write_text(secrets.token_urlsafe(50))
        _key_file.chmod(0o600)
    SECRET_KEY = _key_file.read_text().strip()

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "hermes_ui",
    "hermes_ui.web",
    "hermes_ui.sessions",
    "hermes_ui.audit",
    "hermes_ui.index",
    "hermes_ui.changes",
    "hermes_ui.chat",
    "hermes_ui.deletion",
]
# The demo peer and benchmarks live beside the app, not in it: present in a
# checkout (``make run``, ``make test``, ``make bench``), absent when installed.
if importlib.util.find_spec("devtools") is not None:
    INSTALLED_APPS.append("devtools")

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "hermes_ui.web.roles.RoleRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "hermes_ui.urls"
ASGI_APPLICATION = "hermes_ui.asgi.application"

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

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": env_str("HERMES_UI_DB", str(DATA_DIR / "hermes_ui.sqlite3")),
        "OPTIONS": {
            # WAL plus immediate transactions keep concurrent writers (streams,
            # page loads, the index refresher) from failing with "database is
            # locked" in the middle of a request.
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        },
        # A file, not SQLite's shared-cache memory database, so tests see the
        # same locking (WAL, busy timeout) as the running dashboard.
        # One file per test process, so parallel runs never share a database.
        "TEST": {"NAME": str(DATA_DIR / f"test_hermes_ui_{os.getpid()}.sqlite3")},
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

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
HERMES_LIST_PAGE_SIZE = env_int("HERMES_LIST_PAGE_SIZE", 50, minimum=1, maximum=200)
HERMES_MESSAGES_PAGE_SIZE = env_int("HERMES_MESSAGES_PAGE_SIZE", 100, minimum=10, maximum=2000)

# --- Session index and lineage (see hermes_ui/index/sync.py) ----------------
# The web process refreshes the index every N seconds (0: never; the
# refresher only starts under the real ASGI server, not in tests or commands).
HERMES_INDEX_REFRESH_SECONDS = env_int("HERMES_INDEX_REFRESH_SECONDS", 60, minimum=0)
HERMES_INDEX_FULL_SWEEP_SECONDS = env_int("HERMES_INDEX_FULL_SWEEP_SECONDS", 900, minimum=30)
HERMES_LINEAGE_FOLD_DELEGATES = env_int("HERMES_LINEAGE_FOLD_DELEGATES", 5, minimum=1)
HERMES_LINEAGE_MAX_NODES = env_int("HERMES_LINEAGE_MAX_NODES", 400, minimum=10)
HERMES_DOT = env_str("HERMES_DOT")  # path to Graphviz dot; default: dot on PATH
# Chat: events retained per streamed turn (the connector's bound), and whether
# a session with an end reason may still be continued (closure is metadata).
HERMES_CHAT_MAX_EVENTS = env_int("HERMES_CHAT_MAX_EVENTS", 4096, minimum=1, maximum=100_000)
HERMES_ALLOW_CHAT_ON_CLOSED = env_bool("HERMES_ALLOW_CHAT_ON_CLOSED", False)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    # Defence in depth: tracebacks lose exception messages, API keys are masked.
    "filters": {"redact": {"()": "hermes_ui.audit.logfilter.RedactingFilter"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["redact"]}
    },
    "root": {"handlers": ["console"], "level": env_str("HERMES_UI_LOG_LEVEL", "INFO")},
    "loggers": {"httpx": {"level": "WARNING"}, "httpcore": {"level": "WARNING"}},
}
