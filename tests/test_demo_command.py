"""``make run`` (the ``demo`` command): its own endpoint id, and demo accounts only beside
the embedded peer, never reset by a later start."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from devtools import demo
from devtools.management.commands import demo as demo_command
from hermes_ui import serving
from hermes_ui.web.roles import role_of

pytestmark = pytest.mark.django_db


class StubPeer:
    base_url = "http://127.0.0.1:1"
    key = "k" * 24

    def stop(self):
        pass


@pytest.fixture
def started(monkeypatch, settings, tmp_path):
    """Run the command without serving; returns the environments the children got."""
    settings.DATA_DIR = tmp_path / "data"
    envs = []
    monkeypatch.setattr(serving, "supervise", lambda argvs, env: envs.append(env) or 0)
    monkeypatch.setattr(demo_command, "start_demo_peer", lambda: (StubPeer(), {"sessions": 200}))
    monkeypatch.delenv("HERMES_API_URL", raising=False)
    monkeypatch.delenv("HERMES_ENDPOINT_ID", raising=False)
    return envs


def test_the_demo_runs_as_its_own_endpoint_id(started, capsys):
    call_command("demo", port=8123)
    assert started[-1]["HERMES_ENDPOINT_ID"] == demo.DEMO_ENDPOINT_ID == "demo"
    assert started[-1]["HERMES_API_URL"] == StubPeer.base_url
    assert "endpoint id 'demo'" in capsys.readouterr().out


def test_a_real_hermes_gets_no_demo_accounts(started, monkeypatch, capsys):
    monkeypatch.setenv("HERMES_API_URL", "http://hermes.example:8642")
    monkeypatch.setenv("HERMES_API_KEY", "k" * 24)
    call_command("demo", port=8123)
    assert not get_user_model().objects.exists()
    out = capsys.readouterr().out
    assert "create_user" in out and "admin2" not in out
    assert not (demo.demo_home().parent / "demo-logins.json").exists()
    assert "HERMES_ENDPOINT_ID" not in started[-1]  # the operator's id, default "local"


def test_a_start_never_resets_an_existing_account(started):
    call_command("demo", port=8123)
    User = get_user_model()
    passwords = demo.demo_passwords()
    assert User.objects.get(username="admin").check_password(passwords["admin"])
    assert role_of(User.objects.get(username="admin2")) == "admin"

    admin = User.objects.get(username="admin")
    admin.set_password("changed-by-its-owner-42")
    admin.save()
    User.objects.filter(username="admin2").update(is_active=False)

    call_command("demo", port=8123)
    assert User.objects.get(username="admin").check_password("changed-by-its-owner-42")
    assert User.objects.get(username="admin2").is_active is False
    assert User.objects.count() == len(demo.DEMO_USERS)
