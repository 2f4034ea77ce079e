"""Django settings for Hermes UI, read from the environment with strict parsing."""

import importlib.util
import os
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from hermes_ui.platform import backends
from hermes_ui.platform.endpoints import parse_endpoints
from hermes_ui.platform.env import (
    env_addresses,
    env_bool,
    env_choice,
    env_email,
    env_float,
    env_int,
    env_list,
    env_str,
    env_url,
)
from hermes_ui.platform.private_files import (
    make_tree_private,
    private_dir,
    read_or_create,
    restrict_umask,
)
from hermes_ui.sso.config import allauth_providers, group_roles, oidc_config

# Files this process creates are its user's only (SQLite makes its database
# 0644). Here, because the settings module is the dashboard's first code that
# every process runs, before it creates any file: manage.py, ``python -m
# django`` (the task workers), uvicorn workers (hermes_ui.asgi) and pytest.
restrict_umask()

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(env_str("HERMES_UI_DATA_DIR", str(BASE_DIR / "data")))
# The database, the secret key and the demo logins live here: owner only.
private_dir(DATA_DIR)
# ...and so is what is already in it (an upgrade leaves older files 0644),
# except the collected static files, public anyway (docs/upgrade-and-review.md).
make_tree_private(DATA_DIR, readable=("staticfiles",))

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
    "hermes_ui.access",
    "hermes_ui.sessions",
    "hermes_ui.audit",
    "hermes_ui.index",
    "hermes_ui.search",
    "hermes_ui.lineage",
    "hermes_ui.changes",
    "hermes_ui.chat",
    "hermes_ui.deletion",
    "hermes_ui.compare",
    "hermes_ui.export",
    "hermes_ui.endpoint_status",
    "hermes_ui.verification",
    "hermes_ui.background.jobs",
    "hermes_ui.review",
    "hermes_ui.usage",
    "hermes_ui.tags",
    "hermes_ui.saved_views",
    "hermes_ui.watermarks",
    # Single sign-on (OpenID Connect); see the block "Single sign-on" below.
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "hermes_ui.sso",
    "hermes_ui.api_tokens",
    "hermes_ui.observed",
    "hermes_ui.retention",
    "hermes_ui.live",
    "hermes_ui.shares",
]
INSTALLED_APPS += ["hermes_ui.notifications", "hermes_ui.webhooks"]
# The demo peer and benchmarks live beside the app, not in it: present in a
# checkout (``make run``, ``make test``, ``make bench``), absent when installed.
if importlib.util.find_spec("devtools") is not None:
    INSTALLED_APPS.append("devtools")

# --- Background tasks: django-tasks + django-tasks-db -------------------------------
# The queue is a table of the database above; ``manage.py task_worker`` runs it.
# "periodic" holds the rounds of hermes_ui/background/schedule.py, "default" the rest.
# See docs/operating/background-jobs.md.
INSTALLED_APPS += ["django_tasks", "django_tasks_db", "hermes_ui.background.workers"]
TASKS = {
    "default": {
        "BACKEND": "django_tasks_db.DatabaseBackend",
        "QUEUES": ["default", "periodic"],
    }
}
# Task workers for the "default" queue ``manage.py serve`` starts beside the web
# workers and the one periodic worker (0: none here, run ``manage.py task_worker``
# elsewhere).
HERMES_UI_TASK_WORKERS = env_int("HERMES_UI_TASK_WORKERS", 1, minimum=0, maximum=32)
# A worker whose heartbeat row is older than this is dead: its running task is
# put back in the queue and /readyz stops counting it.
HERMES_UI_TASK_STALE_SECONDS = env_int("HERMES_UI_TASK_STALE_SECONDS", 30, minimum=3, maximum=3600)
# --- end of background tasks -------------------------------------------------------

# --- Monitoring (hermes_ui/monitoring, docs/operating/monitoring.md) --------------
# /metrics answers only a scraper sending "Authorization: Bearer <this>"; unset, it is a 404.
HERMES_UI_METRICS_TOKEN = env_str("HERMES_UI_METRICS_TOKEN")
if HERMES_UI_METRICS_TOKEN:
    if len(HERMES_UI_METRICS_TOKEN) < 16:
        raise ImproperlyConfigured("HERMES_UI_METRICS_TOKEN must have at least 16 characters")
    # Every process of this data folder writes its series here and a scrape of any
    # worker adds them up (prometheus-client's multiprocess mode). Set before anything
    # imports prometheus_client, which reads it once; serve and the demo empty it.
    os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(DATA_DIR / "metrics"))
    private_dir(Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]))
# Log lines as text for people, or one JSON object per line for a log pipeline.
HERMES_UI_LOG_FORMAT = env_choice("HERMES_UI_LOG_FORMAT", "text", ("text", "json"))
# --- end of monitoring ------------------------------------------------------------

MIDDLEWARE = [
    # The page's trace span around everything else; out of the chain unless tracing is on.
    "hermes_ui.platform.tracing.page_span",
    # Then: every later middleware's log records carry the id, and every answer is timed.
    "hermes_ui.platform.request_id.request_id_middleware",
    "hermes_ui.monitoring.timing.request_timing",
    "django.middleware.security.SecurityMiddleware",
    "hermes_ui.web.database.DatabaseOutageMiddleware",
    "hermes_ui.web.deadline.page_deadline",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A session whose person's access was ended (SCIM, IdP logout, revalidation) signs out.
    "hermes_ui.access.ending.SessionEndMiddleware",
    "hermes_ui.web.roles.LoginRequiredMiddleware",
    "hermes_ui.web.roles.RoleRequiredMiddleware",
    # Every /e/<endpoint>/ route: a 404 for an endpoint or session the person may not see.
    "hermes_ui.access.scope.EndpointAccessMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # An endpoint without the session API: its pages name the cause (endpoint_status/gate.py).
    "hermes_ui.endpoint_status.gate.SessionApiGate",
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
# On SIGTERM (manage.py serve / demo) requests in flight get this long to finish.
HERMES_UI_SHUTDOWN_GRACE_SECONDS = env_int(
    "HERMES_UI_SHUTDOWN_GRACE_SECONDS", 20, minimum=1, maximum=3600
)

# Fields render through templates/partials/field.html ({{ field.as_field_group }}).
FORM_RENDERER = "hermes_ui.platform.form_rendering.HermesFormRenderer"

# django-ninja's templates and static files (/api/v1/docs serves swagger-ui from
# them), found where the package lies without importing it: as an installed app,
# "ninja" imported the whole API framework and pydantic into every process's
# django.setup(), a task worker's and a management command's too.
ninja_spec = importlib.util.find_spec("ninja")
assert ninja_spec is not None and ninja_spec.origin, "django-ninja is a dependency"
ninja_dir = Path(ninja_spec.origin).parent

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates", ninja_dir / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "hermes_ui.web.context.navigation",
                "hermes_ui.endpoint_status.context.session_api_banner",
            ],
            # {% url %} reverses each name and plain values once (web/templatetags/url_memo.py).
            "builtins": ["hermes_ui.web.templatetags.url_memo"],
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
    "hermes_ui.web.auth_backend.ModelBackend",
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
# passed by hermes_ui.platform.serving): REMOTE_ADDR, the address axes counts, is then the
# client's. django-ipware is not installed, so axes reads REMOTE_ADDR only.
HERMES_UI_TRUSTED_PROXIES = env_addresses("HERMES_UI_TRUSTED_PROXIES", ["127.0.0.1", "::1"])
AXES_LOCKOUT_CALLABLE = "hermes_ui.web.lockout.locked_out"
AXES_SENSITIVE_PARAMETERS = ["password"]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

# Sessions are rows in the database with a cache in front (platform/backends.py: "sessions").
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
SESSION_CACHE_ALIAS = "sessions"
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
# --- Single sign-on (OpenID Connect, django-allauth; hermes_ui/sso, docs/single-sign-on.md) ---
# Off unless HERMES_UI_OIDC_ISSUER (with its client id, secret and role map) is set.
# How often (minutes) each SSO person's refresh token is used to ask the provider
# again (a round of the schedule; 0 turns it off). Three intervals without an
# answer remove what the provider gave (fail closed).
HERMES_UI_SSO_REVALIDATE_MINUTES = env_float("HERMES_UI_SSO_REVALIDATE_MINUTES", 60.0, minimum=0.0)
HERMES_UI_OIDC = oidc_config(
    issuer=env_url("HERMES_UI_OIDC_ISSUER"),
    client_id=env_str("HERMES_UI_OIDC_CLIENT_ID"),
    client_secret=env_str("HERMES_UI_OIDC_CLIENT_SECRET"),
    name=env_str("HERMES_UI_OIDC_NAME"),  # the button: "Sign in with <name>"
    role_claim=env_str("HERMES_UI_OIDC_ROLE_CLAIM"),  # default: groups
    # group=role[@ep[/source+source]][,ep2...],... (see group_roles below)
    roles=env_str("HERMES_UI_OIDC_ROLES"),
    scopes=env_list("HERMES_UI_OIDC_SCOPES", ["openid", "profile", "email"]),
    revalidate_minutes=HERMES_UI_SSO_REVALIDATE_MINUTES,
)
HERMES_UI_PASSWORD_LOGIN = env_bool("HERMES_UI_PASSWORD_LOGIN", True)
if not HERMES_UI_PASSWORD_LOGIN and HERMES_UI_OIDC is None:
    raise ImproperlyConfigured(
        "HERMES_UI_PASSWORD_LOGIN=false needs single sign-on (HERMES_UI_OIDC_ISSUER ...): "
        "otherwise nobody could sign in"
    )
SOCIALACCOUNT_PROVIDERS = allauth_providers(HERMES_UI_OIDC)
ACCOUNT_ADAPTER = "hermes_ui.sso.adapters.AccountAdapter"
SOCIALACCOUNT_ADAPTER = "hermes_ui.sso.adapters.SocialAccountAdapter"
# A first sign-in makes the account from the ID token, without allauth's signup form;
# never found or linked by e-mail (an admin links, on /account/sso/); no e-mail is sent.
SOCIALACCOUNT_AUTO_SIGNUP = True
SOCIALACCOUNT_EMAIL_AUTHENTICATION = False
SOCIALACCOUNT_EMAIL_AUTHENTICATION_AUTO_CONNECT = False
SOCIALACCOUNT_EMAIL_REQUIRED = False
SOCIALACCOUNT_EMAIL_VERIFICATION = "none"
SOCIALACCOUNT_LOGIN_ON_GET = False  # only the login page's POST starts a sign-in
# The access and refresh token of each SSO person (socialaccount.SocialToken): the
# revalidation round (hermes_ui/sso/revalidation.py) refreshes with it.
SOCIALACCOUNT_STORE_TOKENS = True
SOCIALACCOUNT_REQUESTS_TIMEOUT = env_float("HERMES_UI_OIDC_TIMEOUT", 5.0, minimum=0.5)
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_UNIQUE_EMAIL = False
ACCOUNT_LOGOUT_ON_GET = False
if HERMES_UI_OIDC is not None:
    # The login page's form and the logout POST redirect to the provider; Chromium
    # holds such redirects to form-action too.
    _ISSUER = urlsplit(HERMES_UI_OIDC.issuer)
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["form-action"].append(
        f"{_ISSUER.scheme}://{_ISSUER.netloc}"
    )

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
STATICFILES_DIRS = [BASE_DIR / "static", ninja_dir / "static"]
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# --- SCIM 2.0 provisioning (hermes_ui/scim, django-scim2; docs/admins/scim.md) ---------
# /scim/v2/ answers only "Authorization: Bearer <this>"; unset, it is a 404. The identity
# provider (Okta, Entra ID, Keycloak) creates, deactivates and groups people through it.
HERMES_UI_SCIM_TOKEN = env_str("HERMES_UI_SCIM_TOKEN")
if HERMES_UI_SCIM_TOKEN and len(HERMES_UI_SCIM_TOKEN) < 32:
    raise ImproperlyConfigured("HERMES_UI_SCIM_TOKEN must have at least 32 characters")
INSTALLED_APPS += ["hermes_ui.scim"]
SCIM_SERVICE_PROVIDER = {
    # People are Django's own users; their SCIM id and externalId live beside them.
    "USER_ADAPTER": "hermes_ui.scim.adapters.ScimUserAdapter",
    "GROUP_MODEL": "hermes_ui.access.models.IdpGroup",
    "GROUP_ADAPTER": "hermes_ui.scim.adapters.ScimGroupAdapter",
    "USER_FILTER_PARSER": "hermes_ui.scim.filters.UserFilter",
    "GROUP_FILTER_PARSER": "hermes_ui.scim.filters.GroupFilter",
    "SERVICE_PROVIDER_CONFIG_MODEL": "hermes_ui.scim.adapters.ServiceProviderConfig",
    "BASE_LOCATION_GETTER": "hermes_ui.scim.adapters.base_location",
    # The bearer check (hermes_ui/scim/auth.py) instead of a Django login.
    "AUTH_CHECK_MIDDLEWARE": "hermes_ui.scim.auth.BearerCheck",
    "NETLOC": "unused",  # mandatory in django-scim2; base_location uses the request's host
    "AUTHENTICATION_SCHEMES": [
        {
            "type": "oauthbearertoken",
            "name": "Bearer token",
            "description": "The secret in HERMES_UI_SCIM_TOKEN",
            "primary": True,
        }
    ],
}
# --- end of SCIM -------------------------------------------------------------------

# --- Hermes endpoints -----------------------------------------------------
HERMES_ENDPOINT_ID = env_str("HERMES_ENDPOINT_ID", "local")
HERMES_ENDPOINTS = parse_endpoints(
    default_id=HERMES_ENDPOINT_ID,
    url=env_url("HERMES_API_URL"),
    key=env_str("HERMES_API_KEY"),
    extra=env_list("HERMES_EXTRA_ENDPOINTS", []),
    env=dict(os.environ),
)
# Identity-provider group -> [(endpoint or "*", role, sources)], read by hermes_ui.access.rules
# for each person's groups (SSO claims, SCIM memberships). From HERMES_UI_OIDC_ROLES, which
# may be set without the other OIDC variables (SCIM alone); its endpoints must be configured.
HERMES_UI_GROUP_ROLES = group_roles(env_str("HERMES_UI_OIDC_ROLES"), HERMES_ENDPOINTS)
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
# Requests one API token may make per minute (429 with Retry-After beyond).
HERMES_UI_API_RATE = env_int("HERMES_UI_API_RATE", 600, minimum=1, maximum=100_000)
# The longest an API token of a single sign-on person may last, in days (local people:
# hermes_ui.api_tokens.tokens.MAX_DAYS); the identity provider stays the one to end access.
HERMES_UI_TOKEN_MAX_DAYS = env_int("HERMES_UI_TOKEN_MAX_DAYS", 90, minimum=1, maximum=365)
HERMES_BULK_LIMIT = env_int("HERMES_BULK_LIMIT", 500, minimum=1, maximum=5000)
# How long opening a review item keeps it for that reviewer (others are given other items).
HERMES_REVIEW_RESERVATION_SECONDS = env_int(
    "HERMES_REVIEW_RESERVATION_SECONDS", 600, minimum=10, maximum=86400
)
HERMES_LIST_PAGE_SIZE = env_int("HERMES_LIST_PAGE_SIZE", 50, minimum=1, maximum=200)
HERMES_MESSAGES_PAGE_SIZE = env_int("HERMES_MESSAGES_PAGE_SIZE", 100, minimum=10, maximum=2000)

# --- Session index and lineage (see hermes_ui/index/sync.py) ----------------
# The periodic worker syncs the index every N seconds (0: never).
HERMES_INDEX_REFRESH_SECONDS = env_int("HERMES_INDEX_REFRESH_SECONDS", 60, minimum=0)
# Live updates (hermes_ui/live): how often the live round re-reads a watched endpoint's
# first list page, and the event streams one worker serves before browsers poll instead.
HERMES_UI_LIVE_SECONDS = env_float("HERMES_UI_LIVE_SECONDS", 2.0, minimum=0.1)
if not 0.1 <= HERMES_UI_LIVE_SECONDS <= 3600:  # also refuses nan and inf
    raise ImproperlyConfigured(
        f"HERMES_UI_LIVE_SECONDS must be between 0.1 and 3600, got {HERMES_UI_LIVE_SECONDS}"
    )
HERMES_UI_LIVE_MAX_STREAMS = env_int("HERMES_UI_LIVE_MAX_STREAMS", 1000, minimum=0)
# How often an open stream re-checks its listener's login, account and role (at most
# 30 s), and how many streams one person holds on a worker (one more ends the oldest).
HERMES_UI_LIVE_RECHECK_SECONDS = env_float("HERMES_UI_LIVE_RECHECK_SECONDS", 30.0, minimum=0.1)
if not 0.1 <= HERMES_UI_LIVE_RECHECK_SECONDS <= 30:  # also refuses nan and inf
    raise ImproperlyConfigured(
        "HERMES_UI_LIVE_RECHECK_SECONDS must be between 0.1 and 30, "
        f"got {HERMES_UI_LIVE_RECHECK_SECONDS}"
    )
HERMES_UI_LIVE_STREAMS_PER_PERSON = env_int(
    "HERMES_UI_LIVE_STREAMS_PER_PERSON", 5, minimum=1, maximum=1000
)
HERMES_INDEX_FULL_SWEEP_SECONDS = env_int("HERMES_INDEX_FULL_SWEEP_SECONDS", 900, minimum=30)
# How hard a sync may press on Hermes (hermes_ui/index/pacing.py, docs/scale.md):
# list calls slower than the target make it pause between calls, pauses start at
# (and shrink by) the minimum, and a sweep stretches at most this many times.
HERMES_INDEX_PACE_TARGET_MS = env_int("HERMES_INDEX_PACE_TARGET_MS", 50, minimum=1)
HERMES_INDEX_PACE_MIN_PAUSE_MS = env_int("HERMES_INDEX_PACE_MIN_PAUSE_MS", 250, minimum=1)
HERMES_INDEX_PACE_MAX_STRETCH = env_int(
    "HERMES_INDEX_PACE_MAX_STRETCH", 50, minimum=1, maximum=1000
)
# The list sweep (paging both lists to the end) after the first index; the
# regular full sweep rechecks the indexed sessions by GET (index/pacing.py),
# at least this many milliseconds apart (HERMES_INDEX_VERIFY_GAP_MS: its former name).
HERMES_INDEX_LIST_SWEEP_SECONDS = env_int("HERMES_INDEX_LIST_SWEEP_SECONDS", 86400, minimum=60)
HERMES_INDEX_RECHECK_GAP_MS = env_int(
    "HERMES_INDEX_RECHECK_GAP_MS",
    env_int("HERMES_INDEX_VERIFY_GAP_MS", 8, minimum=0, maximum=10000),
    minimum=0,
    maximum=10000,
)
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
# Share links (hermes_ui/shares): which kinds may exist ("off", "inside": signed-in people
# who may see the session, "outside": also anyone with the link once a second admin
# approves), checked at every view; and the longest a link may last, in days.
HERMES_UI_SHARING = env_choice("HERMES_UI_SHARING", "inside", ("off", "inside", "outside"))
HERMES_UI_SHARE_MAX_DAYS = env_int("HERMES_UI_SHARE_MAX_DAYS", 30, minimum=1, maximum=365)
# Days a chat turn keeps its text (message, system message, answer, event
# payloads); older turns keep only their metadata (see hermes_ui/chat/retention.py).
HERMES_UI_TURN_RETENTION_DAYS = env_int("HERMES_UI_TURN_RETENTION_DAYS", 30, minimum=1)

# --- Notifications and webhooks (hermes_ui/notifications, hermes_ui/webhooks) ------
# Django's own mail settings; without EMAIL_HOST mails are printed, masked.
EMAIL_HOST = env_str("EMAIL_HOST")
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1, maximum=65535)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_TIMEOUT = env_float("EMAIL_TIMEOUT", 10.0, minimum=0.5)
DEFAULT_FROM_EMAIL = env_email("DEFAULT_FROM_EMAIL", "hermes-ui@localhost")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
else:
    EMAIL_HOST = "localhost"
    # Printed, masked as the log is (hermes_ui/notifications/printed_mail.py).
    EMAIL_BACKEND = "hermes_ui.notifications.printed_mail.EmailBackend"
# Links in mails: the dashboard's address as people reach it.
HERMES_UI_BASE_URL = env_url("HERMES_UI_BASE_URL", "http://127.0.0.1:8000")
# Webhook deliveries: seconds one attempt may take; the first retry's delay (doubling,
# with jitter); how long retries go on before a delivery fails (and a webhook failing
# that long is disabled); hosts allowed although they are not public https addresses.
HERMES_UI_WEBHOOK_TIMEOUT = env_float("HERMES_UI_WEBHOOK_TIMEOUT", 5.0, minimum=0.1)
HERMES_UI_WEBHOOK_BACKOFF_SECONDS = env_float(
    "HERMES_UI_WEBHOOK_BACKOFF_SECONDS", 30.0, minimum=0.01
)
HERMES_UI_WEBHOOK_GIVE_UP_SECONDS = env_int("HERMES_UI_WEBHOOK_GIVE_UP_SECONDS", 86400, minimum=1)
HERMES_UI_WEBHOOK_ALLOW_HOSTS = env_list("HERMES_UI_WEBHOOK_ALLOW_HOSTS", [])
# Seconds between probes of every endpoint by the task worker (0: off), which is
# what sends endpoint.down / endpoint.up.
HERMES_UI_ENDPOINT_WATCH_SECONDS = env_int("HERMES_UI_ENDPOINT_WATCH_SECONDS", 60, minimum=0)
# Mail retries: the first retry's delay (doubling) and how many attempts in all.
HERMES_UI_MAIL_BACKOFF_SECONDS = env_float("HERMES_UI_MAIL_BACKOFF_SECONDS", 60.0, minimum=0.01)
HERMES_UI_MAIL_ATTEMPTS = env_int("HERMES_UI_MAIL_ATTEMPTS", 6, minimum=1, maximum=20)
# The daily digest goes at this hour (UTC, 0-23) with what happened before it.
HERMES_UI_DIGEST_HOUR = env_int("HERMES_UI_DIGEST_HOUR", 7, minimum=0, maximum=23)
# How often the notification and webhook rounds run (digests, waiting queues,
# deliveries a killed worker left behind).
HERMES_UI_ROUND_SECONDS = env_float("HERMES_UI_ROUND_SECONDS", 60.0, minimum=0.2)

# Every Hermes call's line (operation, endpoint, status, milliseconds) at INFO;
# off, they are DEBUG. Failed calls are logged as WARNING either way.
HERMES_UI_LOG_CALLS = env_bool("HERMES_UI_LOG_CALLS", False)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "text": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        # time, level, logger, message, request_id (null outside a request); platform/json_log.py
        "json": {"()": "hermes_ui.platform.json_log.JsonLines"},
    },
    # Defence in depth: tracebacks lose exception messages, API keys are masked.
    "filters": {
        "redact": {"()": "hermes_ui.audit.logfilter.RedactingFilter"},
        "request_id": {"()": "hermes_ui.platform.request_id.RequestIdFilter"},
        # Routine success of background rounds is DEBUG (platform/quiet.py).
        "routine": {"()": "hermes_ui.platform.quiet.RoutineAtDebug"},
        # A 403 or 404 is one line (user id, URL pattern, reason), capped per client.
        "refusals": {"()": "hermes_ui.web.refusal_log.RefusalFilter"},
        # A 503 or 504 answered on purpose is no ERROR; the outage is logged once.
        "outages": {"()": "hermes_ui.platform.outages.ExpectedOutageFilter"},
        "task_outages": {"()": "hermes_ui.platform.outages.TaskOutageFilter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": HERMES_UI_LOG_FORMAT,
            "filters": ["request_id", "redact"],
        },
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
        # The pool logs each failed connection attempt; the outage itself is one line
        # of ``hermes_ui.outages`` (``platform/outages.py``).
        "psycopg.pool": {"level": "ERROR"},
        **{
            name: {"handlers": [], "propagate": True}
            for name in (
                "django",
                "django.server",
                "django.security",
                "uvicorn",
                "uvicorn.error",
            )
        },
        "django.request": {"handlers": [], "propagate": True, "filters": ["refusals", "outages"]},
        "django.security.csrf": {"handlers": [], "propagate": True, "filters": ["refusals"]},
        # No access lines at all: a URL can carry search text (``?q=``), which
        # can be transcript text. uvicorn's --no-access-log alone is undone as
        # soon as this configuration runs inside the worker.
        "uvicorn.access": {"handlers": ["discard"], "propagate": False, "level": "CRITICAL"},
        "django_tasks": {"filters": ["routine", "task_outages"]},
        # django-axes announces itself at INFO on every start; lockouts are WARNING.
        "axes": {"handlers": [], "propagate": True, "level": "WARNING"},
    },
}
