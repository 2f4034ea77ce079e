"""A token that expires within a week: its owner is told once (``token.expiring``)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from hermes_ui.api_tokens import expiry, tokens
from hermes_ui.api_tokens.models import ApiToken
from hermes_ui.platform import events

pytestmark = pytest.mark.django_db


@pytest.fixture
def token_events(monkeypatch):
    got: list[events.Event] = []
    monkeypatch.setitem(events.receivers(), "test-token-expiry", got.append)
    return got


def test_a_token_expiring_within_a_week_is_announced_once_to_its_owner(users, token_events):
    soon, _ = tokens.issue(users["reviewer"], "soon", days=3)
    later, _ = tokens.issue(users["reviewer"], "later", days=30)
    revoked, _ = tokens.issue(users["support"], "revoked", days=2)
    tokens.revoke(revoked, users["admin"])
    gone, _ = tokens.issue(users["admin"], "gone", days=1)
    ApiToken.objects.filter(pk=gone.pk).update(expires_at=timezone.now() - timedelta(hours=1))

    assert expiry.announce() == 1
    assert [(e.name, e.users, e.ids) for e in token_events] == [
        (events.TOKEN_EXPIRING, (users["reviewer"].pk,), {"token_id": soon.pk})
    ]
    assert expiry.announce() == 0 and len(token_events) == 1  # once per token
    # A week later the other one is due too.
    assert expiry.announce(timezone.now() + timedelta(days=24)) == 1
    assert token_events[-1].ids == {"token_id": later.pk}
