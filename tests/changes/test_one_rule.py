"""Change outcomes and chat turns ask the one rule (issue 48): one of a session a
person may not see answers 404 as a missing one; the roles are those on its endpoint."""

from __future__ import annotations

import pytest
from django.urls import reverse

from hermes_ui.audit.models import AuditEvent, Outcome
from hermes_ui.chat.models import Turn
from tests.review.access_world import CANARY, EU_CRON, EU_HIDDEN

pytestmark = pytest.mark.django_db


def _change(world, session_id, by) -> str:
    event = AuditEvent.objects.create(
        **world.eu.scope(),
        user=by,
        username=by.get_username(),
        capability="session_patch",
        session_id=session_id,
        outcome=Outcome.SUCCESS,
        evidence={"session_id": session_id, "op": "rename"},
    )
    return reverse("change_outcome", kwargs={"endpoint": "eu", "event_id": event.pk})


def test_a_change_outcome_follows_the_session_and_the_endpoint_role(review_world):
    eve = review_world.people["eve"]
    hidden, shown = _change(review_world, EU_HIDDEN, eve), _change(review_world, EU_CRON, eve)
    answer = review_world.client("pat").get(hidden)
    assert answer.status_code == 404 and CANARY not in answer.content.decode()
    assert review_world.client("ursula").get(hidden).status_code == 404  # no grant on eu at all
    assert review_world.client("pat").get(shown).status_code == 403  # sees it; not theirs
    assert review_world.client("euadmin").get(hidden).status_code == 200  # admin there
    assert review_world.client("eve").get(hidden).status_code == 200  # its actor


def test_a_chat_turn_of_a_hidden_session_is_missing(review_world):
    turn = Turn.objects.create(
        **review_world.eu.scope(),
        requested_session_id=EU_HIDDEN,
        target_session_id=EU_HIDDEN,
        form_key="k1",
        message="hello",
        user=review_world.people["eve"],
    )
    page = reverse("chat_turn", kwargs={"endpoint": "eu", "turn_id": turn.pk})
    stream = reverse("chat_turn_stream", kwargs={"endpoint": "eu", "turn_id": turn.pk})
    assert review_world.client("pat").get(page).status_code == 404
    assert review_world.client("pat").get(stream).status_code == 404
    assert review_world.client("eve").get(page).status_code == 200
