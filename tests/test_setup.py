"""Start-up pieces: strict environment parsing, endpoints, users, the peer launcher."""

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import CommandError

from hermes_ui.platform import env
from hermes_ui.platform.endpoints import parse_endpoints
from hermes_ui.web.roles import role_of


@pytest.mark.parametrize(
    ("reader", "value"),
    [
        (lambda: env.env_bool("X_TEST", False), "maybe"),
        (lambda: env.env_int("X_TEST", 1), "ten"),
        (lambda: env.env_int("X_TEST", 1, minimum=0), "-5"),
        (lambda: env.env_float("X_TEST", 1.0), "fast"),
        (lambda: env.env_url("X_TEST"), "ftp://host"),
        (lambda: env.env_url("X_TEST"), "http://host/?q=1"),
    ],
)
def test_bad_environment_values_stop_start_up(monkeypatch, reader, value):
    monkeypatch.setenv("X_TEST", value)
    with pytest.raises(ImproperlyConfigured, match="X_TEST"):
        reader()


def test_good_environment_values_parse(monkeypatch):
    monkeypatch.setenv("X_TEST", "Yes")
    assert env.env_bool("X_TEST", False) is True
    monkeypatch.setenv("X_TEST", "http://127.0.0.1:8642/")
    assert env.env_url("X_TEST") == "http://127.0.0.1:8642"


def test_endpoints_need_a_key_and_valid_ids():
    with pytest.raises(ImproperlyConfigured, match="HERMES_API_KEY"):
        parse_endpoints(default_id="local", url="http://h", key=None, extra=[], env={})
    with pytest.raises(ImproperlyConfigured, match="HERMES_ENDPOINT_ID"):
        parse_endpoints(default_id="Bad Id", url=None, key=None, extra=[], env={})
    with pytest.raises(ImproperlyConfigured, match="HERMES_API_KEY_EU"):
        parse_endpoints(default_id="local", url=None, key=None, extra=["eu=http://e"], env={})
    table = parse_endpoints(
        default_id="local",
        url="http://h",
        key="k" * 20,
        extra=["eu=http://e:1/"],
        env={"HERMES_API_KEY_EU": "e" * 20},
    )
    assert list(table) == ["local", "eu"]
    assert table["eu"].base_url == "http://e:1"
    assert "e" * 20 not in repr(table["eu"])


@pytest.mark.django_db
def test_create_user_creates_then_updates(django_user_model):
    call_command("create_user", "dana", role="reviewer", password="a-long-password-1")
    user = django_user_model.objects.get(username="dana")
    assert role_of(user) == "reviewer"
    assert user.check_password("a-long-password-1")
    call_command("create_user", "dana", role="admin", password="another-long-pass")
    user = django_user_model.objects.get(username="dana")
    assert role_of(user) == "admin"
    assert user.check_password("another-long-pass")
    grants = list(user.grants.values_list("endpoint", "role", "origin"))
    assert grants == [("*", "admin", "local")]


@pytest.mark.django_db
def test_create_user_refuses_a_short_password():
    with pytest.raises(CommandError, match="too short"):
        call_command("create_user", "eve", role="support", password="short")


@pytest.mark.peer
def test_the_launcher_fails_fast_with_hermes_reason(tmp_path, monkeypatch):
    import time

    from devtools.peer import launcher

    # Skip our own key check so Hermes itself sees the placeholder key.
    monkeypatch.setattr(launcher, "validate_key", lambda key: None)
    peer = launcher.Peer(launcher.PeerConfig(home=tmp_path, key="changeme"))
    started = time.monotonic()
    peer.start()
    with pytest.raises(launcher.PeerError, match="refused to start"):
        peer.wait_healthy(60)
    assert time.monotonic() - started < 30
    assert not peer.running


@pytest.mark.django_db
def test_an_account_without_a_role_sees_only_a_403(client, django_user_model, recorder):
    user = django_user_model.objects.create_user("norole", password="a-long-password-1")
    client.force_login(user)
    for url in ["/", "/e/local/sessions/", "/e/local/sessions/x/"]:
        answer = client.get(url)
        assert answer.status_code == 403
        assert "support role" in answer.content.decode()
    assert recorder.requests == []
    assert client.get("/healthz").status_code == 200
