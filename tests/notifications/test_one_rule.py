"""Mails ask the one rule when they are made and again when they are sent (issue 48).

Django's locmem backend keeps the mails (``mail.outbox``); the queue runs here
(``run_ready``). The people and sessions are ``tests/review/access_world.py``'s.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from hermes_ui.access import grants
from hermes_ui.notifications import kinds, outbox
from hermes_ui.notifications.models import DIGEST, Mail, Notice, Preference
from hermes_ui.platform import events
from tests.review.access_world import CANARY, EU_CRON, EU_HIDDEN
from tests.support.tasks import run_ready

pytestmark = pytest.mark.django_db


@pytest.fixture
def day(settings):
    settings.HERMES_UI_DIGEST_HOUR = 7
    return timezone.now().replace(hour=9, minute=0, second=0, microsecond=0) + timedelta(days=2)


def _mentioned(world, user, session_id, note_id):
    return events.Event(
        events.REVIEW_MENTIONED,
        endpoint="eu",
        actor=world.people["root"].pk,
        users=(user.pk,),
        ids={"note_id": note_id, "session_id": session_id},
    )


def test_a_digest_leaves_out_a_session_whose_grant_was_revoked(review_world, day):
    eve = review_world.people["eve"]
    Preference.objects.create(user=eve, kind=kinds.MENTIONED.key, mode=DIGEST)
    outbox.notify(_mentioned(review_world, eve, EU_CRON, 1), day)
    outbox.notify(_mentioned(review_world, eve, EU_HIDDEN, 2), day)
    assert Notice.objects.filter(user=eve).count() == 2  # both seen when they happened
    # Before the digest goes: eve keeps eu's cron sessions only.
    grants.revoke("eu", user=eve)
    grants.grant("eu", "reviewer", ["cron"], user=eve)
    outbox.digests(day + timedelta(hours=23))
    run_ready()
    (sent,) = mail.outbox
    assert sent.to == ["eve@example.test"]
    assert EU_CRON in sent.body
    assert EU_HIDDEN not in sent.body and CANARY not in sent.body
    assert "(1 events)" in sent.body


def test_a_digest_of_nothing_visible_is_not_sent(review_world, day):
    eve = review_world.people["eve"]
    Preference.objects.create(user=eve, kind=kinds.MENTIONED.key, mode=DIGEST)
    outbox.notify(_mentioned(review_world, eve, EU_HIDDEN, 2), day)
    grants.revoke("eu", user=eve)
    grants.grant("us", "support", user=eve)
    outbox.digests(day + timedelta(hours=23))
    run_ready()
    assert mail.outbox == []
    assert Mail.objects.get(user=eve).last_error == "recipient_role"


def test_nobody_is_told_of_a_session_they_cannot_see(review_world, day):
    pat, ursula, eve = (
        review_world.people["pat"],
        review_world.people["ursula"],
        review_world.people["eve"],
    )
    for person in (pat, ursula, eve):
        outbox.notify(_mentioned(review_world, person, EU_HIDDEN, 3), day)
    run_ready()
    assert [m.to for m in mail.outbox] == [["eve@example.test"]]
    assert set(Notice.objects.values_list("user__username", flat=True)) == {"eve"}


def test_deletion_approvals_go_to_admins_of_that_endpoint_only(review_world, day):
    asked = events.Event(
        events.DELETION_REQUESTED, endpoint="us", actor=review_world.people["ursula"].pk, ids={}
    )
    told = {user.get_username() for user in kinds.audience(asked)}
    assert told == {"root"}  # not euadmin, an admin elsewhere
    disabled = events.Event(events.WEBHOOK_DISABLED, ids={"webhook_id": 1})
    assert {u.get_username() for u in kinds.audience(disabled)} == {"root"}
