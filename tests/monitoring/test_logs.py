"""``HERMES_UI_LOG_FORMAT=json``: one object per line with the request id, redacted as
the text lines are; the request id comes from a safe ``X-Request-ID`` or is made."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from tests.support.browser import template_database

ROOT = Path(__file__).resolve().parents[2]
KEY = "hermes-key-0d9c8b7a6f5e"

SCRIPT = f"""
import logging
import django
django.setup()
from django.test import Client
answer = Client().get("/no-such-page/?q=search-canary", HTTP_X_REQUEST_ID="proxy-id-1234")
assert answer["X-Request-ID"] == "proxy-id-1234"
log = logging.getLogger("hermes_ui.check")
log.warning("key %s and Authorization: Bearer abcdefgh12345678", {KEY!r})
try:
    raise ValueError("message-canary")
except ValueError:
    log.exception("it broke")
"""


def run(tmp_path, **env) -> subprocess.CompletedProcess:
    """``SCRIPT`` in a process of its own, on a copy of the run's migrated database."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HERMES_"))}
    base.update(
        DJANGO_SETTINGS_MODULE="hermes_ui.settings",
        HERMES_UI_DATA_DIR=str(tmp_path),
        HERMES_API_URL="http://127.0.0.1:9",
        HERMES_API_KEY=KEY,
    )
    shutil.copyfile(template_database(base), tmp_path / "hermes_ui.sqlite3")
    base.update(env)
    return subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env=base,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_json_lines_carry_the_request_id_and_are_redacted(tmp_path):
    done = run(tmp_path, HERMES_UI_LOG_FORMAT="json")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stderr.splitlines()]
    refused, masked, broke = lines
    assert set(refused) == {"time", "level", "logger", "message", "request_id"}
    assert refused["logger"] == "django.request" and refused["level"] == "WARNING"
    assert refused["request_id"] == "proxy-id-1234"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", refused["time"])
    assert masked["request_id"] is None  # outside a request
    assert KEY not in done.stderr and "abcdefgh12345678" not in done.stderr
    assert "[redacted]" in masked["message"]
    assert (
        broke["level"] == "ERROR" and "builtins.ValueError: (message withheld)" in broke["exc_info"]
    )
    # No extra record attributes: Django's request object would print the path and query.
    assert "search-canary" not in done.stderr and "no-such-page" not in done.stderr


def test_text_stays_the_default(tmp_path):
    done = run(tmp_path)
    assert done.returncode == 0, done.stderr
    assert " WARNING django.request Refused 404" in done.stderr.splitlines()[0]
    assert KEY not in done.stderr


def test_a_bad_log_format_stops_start_up_naming_the_variable(tmp_path):
    done = run(tmp_path, HERMES_UI_LOG_FORMAT="xml")
    assert done.returncode != 0
    assert "ImproperlyConfigured: HERMES_UI_LOG_FORMAT must be one of" in done.stderr


@pytest.mark.parametrize(
    "offered",
    [
        None,
        "short",
        "x" * 65,
        "has space-123",
        "semi;colon-123",
        "line\nbreak-1234",
        "ünïcode-1234",
    ],
)
@pytest.mark.django_db
def test_an_unsafe_or_missing_request_id_is_replaced_by_a_new_one(offered):
    extra = {} if offered is None else {"HTTP_X_REQUEST_ID": offered}
    given = Client().get("/healthz", **extra)["X-Request-ID"]
    again = Client().get("/healthz", **extra)["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", given) and given != again


@pytest.mark.django_db
def test_a_safe_request_id_is_kept():
    assert Client().get("/healthz", HTTP_X_REQUEST_ID="abc.DEF_123-xyz")["X-Request-ID"] == (
        "abc.DEF_123-xyz"
    )
