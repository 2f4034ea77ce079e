"""Hardening: the Content-Security-Policy, production settings, login lockout,
password rules, session age and logging that never bypasses the redacting filter."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.test import Client

from tests.conftest import PASSWORD

REPO = Path(__file__).resolve().parent.parent
POLICY = {
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "frame-ancestors 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
}
# The production environment documented in README ("Security").
PRODUCTION = {
    "DJANGO_SECURE": "true",
    "DJANGO_ALLOWED_HOSTS": "hermes.example.org",
    "DJANGO_CSRF_TRUSTED_ORIGINS": "https://hermes.example.org",
    "DJANGO_SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto",
    "DJANGO_HSTS_PRELOAD": "true",
}


def _manage(tmp_path, env: dict, *args: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HERMES_"))}
    clean.update(HERMES_UI_DATA_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="hermes_ui.settings")
    return subprocess.run(
        [sys.executable, str(REPO / "manage.py"), *args],
        env={**clean, **env},
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )


# -- Content-Security-Policy ------------------------------------------------------------


@pytest.mark.django_db
def test_every_page_carries_the_content_security_policy(client, login):
    for answer in (client.get("/accounts/login/"), login("support").get("/deletions/")):
        header = answer["Content-Security-Policy"]
        assert set(header.split("; ")) == POLICY


def test_no_template_carries_inline_script_style_or_handlers():
    offenders = []
    for path in (REPO / "templates").rglob("*.html"):
        text = path.read_text()
        for needle in ("style=", "<style", " onclick=", " onload=", "hx-on", "javascript:"):
            if needle in text:
                offenders.append(f"{path.relative_to(REPO)}: {needle}")
        for chunk in text.split("<script")[1:]:
            if "src=" not in chunk.split(">", 1)[0]:
                offenders.append(f"{path.relative_to(REPO)}: inline <script>")
        if "hx-trigger" in text and "[" in text.split("hx-trigger", 1)[1].split('"', 2)[1]:
            offenders.append(f"{path.relative_to(REPO)}: hx-trigger filter (needs eval)")
    assert offenders == []


# -- production settings ------------------------------------------------------------------


def test_check_deploy_is_clean_with_the_documented_production_environment(tmp_path):
    env = {**PRODUCTION, "DJANGO_SECRET_KEY": secrets.token_urlsafe(64)}
    done = _manage(tmp_path, env, "check", "--deploy", "--fail-level", "WARNING")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout
    # Without DJANGO_SECURE the same check warns (HSTS, SSL redirect, cookies).
    plain = _manage(tmp_path, {"DJANGO_SECRET_KEY": env["DJANGO_SECRET_KEY"]}, "check", "--deploy")
    for code in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert code in plain.stderr + plain.stdout


def test_production_requires_a_secret_key(tmp_path):
    done = _manage(tmp_path, PRODUCTION, "check")
    assert done.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in done.stderr
    assert not (tmp_path / "secret_key").exists()


def test_production_settings_values(tmp_path):
    env = {
        **PRODUCTION,
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(64),
        "DJANGO_HSTS_SECONDS": "600",
        "DJANGO_SESSION_COOKIE_AGE": "3600",
    }
    code = (
        "from django.conf import settings as s; print(s.SECURE_HSTS_SECONDS, "
        "s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, "
        "s.SECURE_PROXY_SSL_HEADER, s.SESSION_COOKIE_AGE)"
    )
    done = _manage(tmp_path, env, "shell", "-c", code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == (
        "600 True True True ('HTTP_X_FORWARDED_PROTO', 'https') 3600"
    )


def test_without_the_opt_in_no_proxy_header_is_trusted():
    assert not hasattr(settings, "SECURE_PROXY_SSL_HEADER") or (
        settings.SECURE_PROXY_SSL_HEADER is None
    )


# -- login: lockout, password rules, session age -------------------------------------------


def _try(client: Client, username: str, password: str, ip: str = "10.0.0.1"):
    return client.post(
        "/accounts/login/", {"username": username, "password": password}, REMOTE_ADDR=ip
    )


@pytest.mark.django_db
def test_five_failures_lock_that_user_from_that_address_for_15_minutes(users):
    client = Client()
    for _ in range(4):
        assert _try(client, "support", "wrong password").status_code == 200
    locked = _try(client, "support", "wrong password")
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "Login locked" in page and "5 in a row" in page and "15 minutes" in page
    # Even the right password is refused while locked.
    assert _try(client, "support", "correct-horse-battery").status_code == 429
    # The lock is per user AND address: others are not locked out.
    assert _try(Client(), "support", "correct-horse-battery", ip="10.0.0.2").status_code == 302
    assert _try(Client(), "reviewer", "correct-horse-battery").status_code == 302


@pytest.mark.django_db
def test_an_admin_unlocks_with_the_management_command(users):
    client = Client()
    for _ in range(5):
        _try(client, "support", "wrong password")
    assert _try(client, "support", "correct-horse-battery").status_code == 429
    call_command("axes_reset_username", "support")
    answer = _try(client, "support", "correct-horse-battery")
    assert answer.status_code == 302 and answer["Location"] == "/"


@pytest.mark.django_db
def test_the_lockout_cools_off(users, settings):
    from datetime import timedelta

    from axes.models import AccessAttempt

    client = Client()
    for _ in range(5):
        _try(client, "support", "wrong password")
    AccessAttempt.objects.update(
        attempt_time=AccessAttempt.objects.get().attempt_time - timedelta(minutes=16)
    )
    assert _try(client, "support", "correct-horse-battery").status_code == 302


def _lock_of(answer) -> str:
    assert answer.status_code == 429, answer.status_code
    page = answer.content.decode()
    return "address" if 'data-lock="address"' in page else "user"


@pytest.mark.django_db
def test_an_address_spraying_usernames_is_locked_at_the_address_limit(users):
    spray = "10.0.0.9"
    for _ in range(4):
        assert _try(Client(), "admin", "wrong password", spray).status_code == 200
    assert _lock_of(_try(Client(), "admin", "wrong password", spray)) == "user"
    # 5 failures so far; the address limit is 20 failures, whatever the username.
    for n in range(14):
        answer = _try(Client(), f"guess{n}", "Summer2026!", spray)
        assert answer.status_code == 200, n
    locked = _try(Client(), "guess14", "Summer2026!", spray)
    assert _lock_of(locked) == "address"
    page = locked.content.decode()
    assert "20 within 15 minutes, whatever the username" in page
    # Every username from that address is refused, even with the right password...
    assert _try(Client(), "reviewer", PASSWORD, spray).status_code == 429
    # ...and nobody elsewhere is: admin's own lock is for that address only.
    assert _try(Client(), "reviewer", PASSWORD, "10.0.0.10").status_code == 302
    assert _try(Client(), "admin", PASSWORD, "10.0.0.10").status_code == 302


@pytest.mark.django_db
def test_one_person_mistyping_stays_locked_for_their_username_only(users):
    for _ in range(5):
        _try(Client(), "support", "wrong password")
    # Retrying while locked is refused unchecked: it never adds up to the address limit.
    for _ in range(25):
        assert _lock_of(_try(Client(), "support", "wrong password")) == "user"
    assert _try(Client(), "reviewer", PASSWORD).status_code == 302
    assert _try(Client(), "admin", PASSWORD).status_code == 302


@pytest.mark.django_db
def test_a_good_login_from_the_address_clears_only_that_users_failures(users):
    spray = "10.0.0.9"
    for _ in range(5):
        _try(Client(), "admin", "wrong password", spray)
    for n in range(14):
        _try(Client(), f"guess{n}", "Summer2026!", spray)
    # The sprayer's own account logs in: admin stays locked, the address's count stays.
    assert _try(Client(), "reviewer", PASSWORD, spray).status_code == 302
    assert _lock_of(_try(Client(), "admin", PASSWORD, spray)) == "user"
    assert _lock_of(_try(Client(), "guess14", "Summer2026!", spray)) == "address"


def test_the_address_limit_must_be_above_the_per_user_limit(tmp_path):
    env = {"HERMES_UI_LOGIN_FAILURE_LIMIT": "5", "HERMES_UI_LOGIN_ADDRESS_FAILURE_LIMIT": "5"}
    done = _manage(tmp_path, env, "check")
    assert done.returncode != 0
    assert "HERMES_UI_LOGIN_ADDRESS_FAILURE_LIMIT (5) must be higher" in done.stderr
    done = _manage(tmp_path, {"HERMES_UI_LOGIN_ADDRESS_FAILURE_LIMIT": "twenty"}, "check")
    assert "HERMES_UI_LOGIN_ADDRESS_FAILURE_LIMIT must be an integer" in done.stderr


@pytest.mark.parametrize("value", ["*", "proxy.internal", "10.0.0.5/24", "10.0.0.300"])
def test_trusted_proxies_are_ip_addresses_or_networks(monkeypatch, value):
    from django.core.exceptions import ImproperlyConfigured

    from hermes_ui.platform.env import env_addresses

    monkeypatch.setenv("HERMES_UI_TRUSTED_PROXIES", f"127.0.0.1,{value}")
    with pytest.raises(ImproperlyConfigured, match="HERMES_UI_TRUSTED_PROXIES"):
        env_addresses("HERMES_UI_TRUSTED_PROXIES", [])


def test_uvicorn_believes_x_forwarded_for_from_the_trusted_proxies_only(settings, monkeypatch):
    from hermes_ui.platform import serving
    from hermes_ui.platform.env import env_addresses

    monkeypatch.setenv("HERMES_UI_TRUSTED_PROXIES", "10.0.0.2, 10.1.0.0/16,::1")
    settings.HERMES_UI_TRUSTED_PROXIES = env_addresses("HERMES_UI_TRUSTED_PROXIES", [])
    argv = serving.uvicorn_argv("127.0.0.1", 8000)
    assert "--proxy-headers" in argv
    assert argv[argv.index("--forwarded-allow-ips") + 1] == "10.0.0.2,10.1.0.0/16,::1"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("password", "reason"),
    [
        ("short1!", "too short"),
        ("password123", "too common"),
        ("4815162342108", "entirely numeric"),
        ("gwendolyn-smithers", "too similar"),
    ],
)
def test_all_four_password_validators_are_on(django_user_model, password, reason):
    user = django_user_model(username="gwendolyn-smithers")
    with pytest.raises(ValidationError, match=reason):
        validate_password(password, user)
    validate_password("a calm heron 4 tea", user)


def test_sessions_last_eight_hours_by_default():
    assert settings.SESSION_COOKIE_AGE == 8 * 3600


@pytest.mark.django_db
def test_a_login_cookie_expires_after_the_session_age(users):
    answer = _try(Client(), "support", "correct-horse-battery")
    assert answer.cookies["sessionid"]["max-age"] == 8 * 3600


# -- logging ---------------------------------------------------------------------------------

_LOGGING_PROBE = """
import logging, logging.config
from uvicorn.config import LOGGING_CONFIG
logging.config.dictConfig(LOGGING_CONFIG)  # what uvicorn does before importing the app
import django
django.setup()
from hermes_ui.audit.logfilter import RedactingFilter
names = ["django", "django.request", "django.server", "django.security.csrf",
         "django.db.backends", "uvicorn", "uvicorn.error", "uvicorn.access", "axes"]
bare = [(name, type(h).__name__) for name in names + [""]
        for h in logging.getLogger(name).handlers
        if not any(isinstance(f, RedactingFilter) for f in h.filters)]
print("BARE", bare)
for name in names:
    try:
        raise RuntimeError("CANARY-" + "7f3a")
    except RuntimeError:
        logging.getLogger(name).error("probe from %s", name, exc_info=True)
"""


def test_django_and_uvicorn_loggers_all_go_through_the_redacting_filter(tmp_path):
    # DEBUG on: Django's default "django" console handler is then active too.
    env = {"DJANGO_DEBUG": "true", "DJANGO_SECRET_KEY": secrets.token_urlsafe(64)}
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HERMES_"))}
    clean.update(HERMES_UI_DATA_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="hermes_ui.settings")
    done = subprocess.run(
        [sys.executable, "-c", _LOGGING_PROBE],
        env={**clean, **env},
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "BARE []" in output
    assert "probe from django.server" in output and "probe from uvicorn.error" in output
    assert "(message withheld)" in output
    assert "CANARY-7f3a" not in output


def test_urls_with_search_text_never_reach_the_servers_log(dashboard):
    """uvicorn's access lines would print ``?q=…`` (search text can be transcript
    text). A later request's own log line marks the point the first one's access
    line would have been written by."""
    import httpx

    from tests.support.waiting import until

    needle = f"needle-{secrets.token_hex(4)}"
    refused = "Refused 404 user=anonymous path=(no route) reason=no_route"
    before = dashboard.log_path.read_text().count(refused)
    # A refusal's line gives the URL pattern only, so the marker is one more of them,
    # from an address of its own (through the trusted proxy) that no cap holds back.
    fresh = {"X-Forwarded-For": f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.7"}
    with httpx.Client(base_url=dashboard.base_url, timeout=30) as browser:
        assert browser.get("/e/local/sessions/", params={"q": needle}).status_code == 302
        assert browser.get(f"/marker-{needle}/", headers=fresh).status_code == 404
    until(
        lambda: dashboard.log_path.read_text().count(refused) > before,
        10,
        "the 404 was never logged",
    )
    assert needle not in dashboard.log_path.read_text()
