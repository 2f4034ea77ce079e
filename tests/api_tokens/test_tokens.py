"""Personal API tokens: only a hash is kept, a token follows its user's current role, and
expiry, revocation and deactivation each stop it."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from hermes_ui.access import grants
from hermes_ui.access.grants import set_role
from hermes_ui.api_tokens import tokens
from hermes_ui.api_tokens.models import ApiToken
from hermes_ui.audit.models import AuditEvent
from hermes_ui.web.roles import role_of

pytestmark = pytest.mark.django_db


def test_only_a_hash_of_the_secret_is_stored(users):
    token, plain = tokens.issue(users["reviewer"], "job", days=10, write=True)
    assert plain.startswith(f"hui_{token.key_id}_")
    secret = plain[len(f"hui_{token.key_id}_") :]
    stored = ApiToken.objects.filter(pk=token.pk).values().get()
    assert all(secret not in str(value) for value in stored.values())
    assert stored["digest"] != secret and len(stored["digest"]) == 64
    assert tokens.authenticate(plain).pk == token.pk
    assert (token.expires_at - token.created_at) == timedelta(days=10)


@pytest.mark.parametrize("days", [0, 366, -1])
def test_expiry_is_one_to_365_days(users, days):
    with pytest.raises(ValueError):
        tokens.issue(users["support"], "x", days=days)


def test_default_expiry_is_90_days(users):
    token, _ = tokens.issue(users["support"], "x")
    assert token.expires_at - token.created_at == timedelta(days=90)


def test_wrong_tokens_are_refused(users):
    token, plain = tokens.issue(users["support"], "x")
    flipped = plain[:-1] + ("A" if plain[-1] != "A" else "B")
    other_key = plain.replace(token.key_id, "0" * 12)
    for wrong in (flipped, other_key, "", "hui_", "not a token", plain + "x", plain.upper()):
        assert tokens.authenticate(wrong) is None, wrong


def test_a_wrong_token_does_the_same_work_as_a_right_one(users):
    """The same queries for a malformed, an unknown and a right token: a miss is not cheaper
    (timing itself is measured by ``manage.py bench --only api``)."""
    _, plain = tokens.issue(users["support"], "x")
    counts = []
    for raw in (plain, "garbage", "hui_" + "a" * 12 + "_" + "b" * 43):
        with CaptureQueriesContext(connection) as ctx:
            tokens.authenticate(raw)
        counts.append([q["sql"].split(" WHERE ")[0] for q in ctx.captured_queries][:1])
    assert counts[0] == counts[1] == counts[2]


def test_expired_revoked_and_deactivated_tokens_stop(users):
    user = users["reviewer"]
    token, plain = tokens.issue(user, "x")
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert tokens.authenticate(plain) is None
    token2, plain2 = tokens.issue(user, "y")
    assert tokens.revoke(token2, users["admin"]) is True
    assert tokens.revoke(token2, users["admin"]) is False  # once
    assert tokens.authenticate(plain2) is None
    _, plain3 = tokens.issue(user, "z")
    assert tokens.authenticate(plain3) is not None
    user.is_active = False
    user.save()
    assert tokens.authenticate(plain3) is None


def test_a_token_takes_the_users_role_as_it_is_now(users):
    user = users["admin2"]
    _, plain = tokens.issue(user, "x")
    assert role_of(tokens.authenticate(plain).user) == "admin"
    set_role(user, "support")
    assert role_of(tokens.authenticate(plain).user) == "support"
    grants.revoke("*", user=user)
    assert tokens.authenticate(plain) is None  # no grant, no access


def test_first_use_of_a_day_is_audited_once(users):
    token, plain = tokens.issue(users["support"], "x")
    for _ in range(3):
        tokens.note_use(tokens.authenticate(plain))
    uses = AuditEvent.objects.filter(capability="api.token_use")
    assert uses.count() == 1
    assert uses.get().evidence["id"] == token.pk
    token.refresh_from_db()
    assert token.last_used_at is not None
    yesterday = timezone.now() - timedelta(days=1)
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=yesterday)
    tokens.note_use(tokens.authenticate(plain))
    assert uses.count() == 2


def test_admins_see_everyones_tokens_others_their_own(users):
    mine, _ = tokens.issue(users["support"], "mine")
    theirs, _ = tokens.issue(users["reviewer"], "theirs")
    assert list(tokens.visible_to(users["support"])) == [mine]
    assert set(tokens.visible_to(users["admin"])) == {mine, theirs}


def test_command_prints_a_working_token_once_and_revokes(users):
    out = StringIO()
    call_command(
        "api_token", "create", "reviewer", "--name", "ci", "--days", "7", "--write", stdout=out
    )
    plain = out.getvalue().strip()
    found = tokens.authenticate(plain)
    assert found.user == users["reviewer"] and found.write and found.name == "ci"
    assert found.expires_at - found.created_at == timedelta(days=7)
    out = StringIO()
    call_command("api_token", "revoke", found.key_id, stdout=out)
    assert "Revoked 1 token" in out.getvalue()
    assert tokens.authenticate(plain) is None
    with pytest.raises(CommandError, match="1 to 365"):
        call_command("api_token", "create", "reviewer", "--name", "ci", "--days", "400")
    with pytest.raises(CommandError, match="No user"):
        call_command("api_token", "create", "nobody", "--name", "ci")


def test_command_revokes_every_token_of_a_user(users):
    plains = [tokens.issue(users["support"], f"t{i}")[1] for i in range(2)]
    call_command("api_token", "revoke", "--user", "support", stdout=StringIO())
    assert all(tokens.authenticate(p) is None for p in plains)


@pytest.mark.parametrize("value", ["0", "lots", "100001"])
def test_a_bad_rate_setting_stops_start_up_naming_it(tmp_path, value):
    from tests.test_security import _manage

    done = _manage(tmp_path, {"HERMES_UI_API_RATE": value}, "check")
    assert done.returncode != 0 and "HERMES_UI_API_RATE" in done.stderr
