"""``make run`` (the ``demo`` command): its own endpoint id, demo accounts only beside
the embedded peer, never reset by a later start, and a banner printed only once the
first index sync has finished."""

from datetime import timedelta
from io import StringIO

import httpx
import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from devtools import demo
from devtools.management.commands import demo as demo_command
from hermes_ui.access.rules import access_of
from hermes_ui.index.models import IndexSyncState
from hermes_ui.platform import serving
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.web.roles import role_of

pytestmark = pytest.mark.django_db


class StubPeer:
    base_url = "http://127.0.0.1:1"
    key = "k" * 24

    def stop(self):
        pass


def record_sync(env, **fields):
    """What the periodic worker records when its sync of the served endpoint ends."""
    ep = Endpoint(env.get("HERMES_ENDPOINT_ID") or "local", env["HERMES_API_URL"], "k")
    IndexSyncState.objects.update_or_create(**ep.scope(), defaults=fields)


@pytest.fixture
def started(monkeypatch, settings, tmp_path):
    """Run the command without serving; returns the environments the children got.

    The children "run" until their first index sync has finished, which is
    recorded at once."""
    settings.DATA_DIR = tmp_path / "data"
    settings.HERMES_INDEX_REFRESH_SECONDS = 60
    # The command names its endpoints in this process; the fixture puts the table back.
    settings.HERMES_ENDPOINTS = dict(settings.HERMES_ENDPOINTS)
    envs = []

    def supervise(argvs, env, started=None):
        envs.append(env)
        record_sync(env, last_sync_at=timezone.now())
        started(lambda: True)
        return 0

    monkeypatch.setattr(serving, "supervise", supervise)
    monkeypatch.setattr(demo_command, "start_demo_peer", lambda: (StubPeer(), {"sessions": 200}))
    monkeypatch.setattr(demo_command, "POLL_SECONDS", 0)
    monkeypatch.setattr(demo_command, "SETTLE_SECONDS", 0)
    monkeypatch.setattr(demo_command, "FIRST_SYNC_WAIT", 5.0)
    monkeypatch.delenv("HERMES_API_URL", raising=False)
    monkeypatch.delenv("HERMES_ENDPOINT_ID", raising=False)
    return envs


def supervised_until(monkeypatch, out: StringIO, *, sync_ends_on_poll=None, error_code=""):
    """A ``supervise`` whose periodic worker ends its first sync (failing with ``error_code``) on
    the given poll of the children; returns what the console showed at each poll."""
    seen = []

    def supervise(argvs, env, started=None):
        def running():
            seen.append(out.getvalue())
            if len(seen) == sync_ends_on_poll:
                now = timezone.now()
                ended = {"last_error_at": now, "last_error_code": error_code}
                record_sync(env, **(ended if error_code else {"last_sync_at": now}))
            return True

        started(running)
        return 0

    monkeypatch.setattr(serving, "supervise", supervise)
    return seen


def test_the_banner_comes_after_the_first_sync_finished(started, monkeypatch):
    out = StringIO()
    seen = supervised_until(monkeypatch, out, sync_ends_on_poll=3)
    # A sync from an earlier start does not count.
    earlier = {"HERMES_ENDPOINT_ID": "demo", "HERMES_API_URL": StubPeer.base_url}
    record_sync(earlier, last_sync_at=timezone.now() - timedelta(minutes=5))
    call_command("demo", port=8123, stdout=out)
    assert len(seen) >= 3, "the banner did not wait for the sync"
    assert all("Hermes UI:" not in console for console in seen)
    printed = out.getvalue()
    assert "Hermes UI: http://127.0.0.1:8123/" in printed
    assert printed.index("Demo peer at") < printed.index("Hermes UI:")
    assert printed.index("Hermes UI:") < printed.index("admin2") < printed.index("Ctrl-C")
    assert "index sync" not in printed


def test_a_failed_first_sync_still_prints_the_banner_with_a_note(started, monkeypatch):
    out = StringIO()
    supervised_until(monkeypatch, out, sync_ends_on_poll=1, error_code="unauthorized")
    call_command("demo", port=8123, stdout=out)
    printed = out.getvalue()
    assert "first index sync of 'demo' failed (unauthorized)" in printed
    assert printed.index("failed (unauthorized)") < printed.index("Hermes UI:")


def test_a_sync_that_takes_too_long_does_not_hold_the_banner(started, monkeypatch):
    monkeypatch.setattr(demo_command, "FIRST_SYNC_WAIT", 0.05)
    out = StringIO()
    supervised_until(monkeypatch, out)
    call_command("demo", port=8123, stdout=out)
    printed = out.getvalue()
    assert "has not finished after 0 s" in printed and "Hermes UI:" in printed


def test_no_banner_when_a_child_exits_before_the_sync(started, monkeypatch):
    out = StringIO()
    polls = []

    def exited() -> bool:
        polls.append(out.getvalue())
        return False

    monkeypatch.setattr(serving, "supervise", lambda argvs, env, started: started(exited))
    call_command("demo", port=8123, stdout=out)
    assert polls and "Hermes UI:" not in out.getvalue()


def test_the_demo_runs_as_its_own_endpoint_id(started, capsys):
    call_command("demo", port=8123)
    assert started[-1]["HERMES_ENDPOINT_ID"] == demo.DEMO_ENDPOINT_ID == "demo"
    assert started[-1]["HERMES_API_URL"] == StubPeer.base_url
    assert "endpoint id 'demo'" in capsys.readouterr().out


class TeamStubPeer(StubPeer):
    def profile_url(self, name):
        return f"{self.base_url}/p/{name}"


def test_two_teams_get_a_profile_endpoint_each_and_a_grant_there(started, monkeypatch, capsys):
    peer = TeamStubPeer()
    monkeypatch.setattr(demo_command, "start_demo_peer", lambda: (peer, {"sessions": 200}))
    call_command("demo", port=8123)
    env = started[-1]
    assert env["HERMES_EXTRA_ENDPOINTS"] == (
        f"team-eu={peer.base_url}/p/team-eu,team-us={peer.base_url}/p/team-us"
    )
    assert env["HERMES_API_KEY_TEAM_EU"] == env["HERMES_API_KEY_TEAM_US"] == peer.key
    User = get_user_model()
    assert access_of(User.objects.get(username="eu-support")).endpoint_ids() == ["team-eu"]
    assert access_of(User.objects.get(username="us-support")).endpoint_ids() == ["team-us"]
    contractor = access_of(User.objects.get(username="eu-cron"))
    assert contractor.role_on("team-eu", "cron") == "support"
    assert contractor.role_on("team-eu", "cli") is None
    assert access_of(User.objects.get(username="admin")).endpoint_ids() == [
        "demo",
        "team-eu",
        "team-us",
    ]
    out = capsys.readouterr().out
    assert "eu-cron" in out and "support on team-eu, cron sessions only" in out


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


def test_paging_puts_the_paging_peer_in_front_and_stops_both(started, monkeypatch, tmp_path):
    stopped = []

    class Upstream(StubPeer):
        log_dir = tmp_path

        def stop(self):
            stopped.append(True)

    monkeypatch.setattr(demo_command, "start_demo_peer", lambda: (Upstream(), {"sessions": 200}))
    out = StringIO()
    call_command("demo", port=8123, paging=True, stdout=out)
    (env,) = started
    assert env["HERMES_API_URL"] != StubPeer.base_url and env["HERMES_API_KEY"] == StubPeer.key
    assert f"The paging peer at {env['HERMES_API_URL']}" in out.getvalue()
    assert stopped == [True]
    with pytest.raises(httpx.ConnectError):  # the proxy was stopped too
        httpx.get(env["HERMES_API_URL"] + "/health", timeout=2)
