"""The mail and webhook settings are parsed strictly: a bad value stops start-up, naming it."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.mail import EmailMessage, get_connection

from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.platform.env import env_email

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("value", ["nobody", "@example.org", "a@", "Name <>"])
def test_a_bad_sender_address_is_refused(monkeypatch, value):
    monkeypatch.setenv("X_TEST_FROM", value)
    with pytest.raises(ImproperlyConfigured, match="X_TEST_FROM"):
        env_email("X_TEST_FROM", "a@b.c")


def test_a_sender_with_a_name_is_accepted(monkeypatch):
    monkeypatch.setenv("X_TEST_FROM", "Hermes UI <hermes@example.org>")
    assert env_email("X_TEST_FROM", "a@b.c") == "Hermes UI <hermes@example.org>"


def _settings(tmp_path, **env) -> subprocess.CompletedProcess:
    code = "from django.conf import settings; print(settings.EMAIL_BACKEND, settings.EMAIL_PORT)"
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); " + code],
        cwd=ROOT,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("EMAIL_")},
            "DJANGO_SETTINGS_MODULE": "hermes_ui.settings",
            "HERMES_UI_DATA_DIR": str(tmp_path),
            **env,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_without_a_mail_host_mails_are_printed_and_with_one_sent_by_smtp(tmp_path):
    printed = _settings(tmp_path)
    assert printed.stdout.split() == ["hermes_ui.notifications.printed_mail.EmailBackend", "25"]
    sent = _settings(tmp_path, EMAIL_HOST="smtp.example.org", EMAIL_PORT="587")
    assert sent.stdout.split() == ["django.core.mail.backends.smtp.EmailBackend", "587"]


def test_a_printed_mail_is_masked_as_a_log_line_is(tmp_path, settings):
    """The backend the settings pick without EMAIL_HOST prints no key, token or raw mail."""
    key = "hk-" + "7" * 30
    settings.HERMES_ENDPOINTS = {"local": Endpoint("local", "http://127.0.0.1:9", key)}
    backend = _settings(tmp_path).stdout.split()[0]
    out = io.StringIO()
    mail = EmailMessage(
        subject="Deletion request #12",
        body=f"Key {key}\nAuthorization: Bearer abcdefghijklmnop1234\nSee #12.",
        from_email="hermes-ui@localhost",
        to=["ada@example.org"],
        headers={"List-Unsubscribe": "<http://127.0.0.1:8000/notifications/>"},
    )
    assert get_connection(backend, stream=out).send_messages([mail]) == 1
    printed = out.getvalue()
    assert key not in printed and "abcdefghijklmnop1234" not in printed
    assert "Deletion request #12" in printed and "See #12." in printed
    assert "ada@example.org" in printed
    # Not the whole mail: no MIME headers of its own.
    assert "Content-Transfer-Encoding" not in printed and "List-Unsubscribe" not in printed


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("EMAIL_PORT", "smtp"),
        ("EMAIL_PORT", "70000"),
        ("EMAIL_USE_TLS", "maybe"),
        ("HERMES_UI_WEBHOOK_TIMEOUT", "soon"),
        ("HERMES_UI_DIGEST_HOUR", "24"),
    ],
)
def test_a_bad_value_stops_start_up_naming_the_variable(tmp_path, name, value):
    found = _settings(tmp_path, **{name: value})
    assert found.returncode != 0 and name in found.stderr
