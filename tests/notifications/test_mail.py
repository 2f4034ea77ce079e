"""E-mail notifications through a real SMTP server (aiosmtpd on loopback).

The features act as people would (a deletion requested and decided through
the views, a note written with mentions); the queue runs in this process
(``run_ready``): the worker itself is tested in ``tests/webhooks``.
"""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from hermes_ui.index.models import IndexedSession
from hermes_ui.notifications import outbox
from hermes_ui.notifications.models import DIGEST, IMMEDIATE, NEVER, Mail, Notice, Preference
from hermes_ui.platform import events
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.review import notes, waiting
from hermes_ui.review.models import Item, Label, Queue, Review, Rubric, RubricVersion
from tests.deletion.helpers import decide, request_deletion
from tests.support.tasks import run_ready

pytestmark = pytest.mark.django_db

TARGET = "fx_del_parent"
TITLE = "Refund for alice@example.com"
CANARIES = ("CANARY-TRANSCRIPT-7f3a", "CANARY-NOTE-91bc", "CANARY-LABEL-44de", "CANARY-REASON-0a1")


@pytest.fixture
def people(users):
    for name, user in users.items():
        user.email = f"{name}@example.test"
        user.save(update_fields=["email"])
    return users


@pytest.fixture
def titled(fake_hermes):
    """The target's index row carries a title with an address (masked in mails) and its
    transcript a canary (never in a mail)."""
    ep = get_endpoint("local")
    now = timezone.now()
    IndexedSession.objects.create(
        **ep.scope(),
        session_id=TARGET,
        title=TITLE,
        digest="x",
        first_seen_at=now,
        last_seen_at=now,
    )
    fake_hermes.messages[TARGET][0]["content"] = f"the customer said {CANARIES[0]}"
    return fake_hermes


def assert_clean(inbox):
    assert inbox.messages, "no mail was sent at all"
    for message in inbox.messages:
        whole = message.as_string()
        for canary in CANARIES:
            assert canary not in whole, f"{canary} leaked into {message['Subject']!r}"
        assert "alice@example.com" not in whole


def test_a_deletion_request_mails_the_other_admins_and_approval_mails_the_requester(
    login, people, titled, smtp_inbox, clock
):
    case = request_deletion(login("admin"), TARGET, f"reason {CANARIES[3]}")
    run_ready()
    assert smtp_inbox.recipients() == {"admin2@example.test"}  # not the requester, no non-admin
    (mail,) = smtp_inbox.messages
    assert mail["Subject"] == f"[Hermes UI] Deletion request #{case.pk} awaits your approval"
    text = smtp_inbox.text(mail)
    assert f"Session: {TARGET} (Refund for [redacted:email])" in text
    assert "Event: deletion.requested" in text
    assert f"http://127.0.0.1:8000/deletions/{case.pk}/" in text
    assert mail["List-Unsubscribe"] == "<http://127.0.0.1:8000/account/notifications/>"

    assert decide(login("admin2"), case.pk).status_code == 302
    run_ready()
    decided = smtp_inbox.to("admin@example.test")
    assert [m["Subject"] for m in decided] == [
        f"[Hermes UI] Your deletion request #{case.pk} was approved"
    ]
    assert len(smtp_inbox.messages) == 2  # the approver is not told of their own approval
    assert_clean(smtp_inbox)


def test_a_mention_mails_the_mentioned_user_once(people, titled, smtp_inbox):
    ep = get_endpoint("local")
    body = f"@reviewer please look, @reviewer again, @admin too {CANARIES[1]}"
    note = notes.add(ep, people["admin2"], TARGET, None, body)
    run_ready()
    assert sorted(m["X-Envelope-To"] for m in smtp_inbox.messages) == [
        "admin@example.test",
        "reviewer@example.test",
    ]
    (mail,) = smtp_inbox.to("reviewer@example.test")
    assert mail["Subject"] == "[Hermes UI] You were mentioned in a note"
    assert f"Session: {TARGET}" in smtp_inbox.text(mail)
    assert Notice.objects.filter(ids__note_id=note.pk).count() == 2
    assert_clean(smtp_inbox)


def labelled_item(ep, owner, reviewer) -> Queue:
    """A queue owned by ``owner`` whose item for the target carries a canary label value."""
    rubric = Rubric.objects.create(name="canary")
    version = RubricVersion.objects.create(rubric=rubric, number=1, fields=[])
    queue = Queue.objects.create(**ep.scope(), name="canary", rubric=rubric, owner=owner)
    item = Item.objects.create(queue=queue, **ep.scope(), session_id=TARGET)
    review = Review.objects.create(item=item, reviewer=reviewer, version=version)
    Label.objects.create(
        **ep.scope(), session_id=TARGET, review=review, field="why", value=CANARIES[2]
    )
    Item.objects.filter(pk=item.pk).update(created_at=timezone.now() - timedelta(days=2))
    return queue


def test_a_queue_with_items_waiting_over_a_day_mails_its_owner_once_a_day(
    people, titled, smtp_inbox
):
    Preference.objects.create(user=people["reviewer"], kind="queue_waiting", mode=IMMEDIATE)
    queue = labelled_item(get_endpoint("local"), people["reviewer"], people["admin"])
    assert waiting.announce() == 1
    run_ready()
    (mail,) = smtp_inbox.messages
    assert mail["X-Envelope-To"] == "reviewer@example.test"
    assert mail["Subject"] == f"[Hermes UI] Review queue #{queue.pk} has items waiting over a day"
    assert "Waiting: 1" in smtp_inbox.text(mail)
    assert f"/e/local/review/{queue.pk}/" in smtp_inbox.text(mail)
    waiting.announce()  # the next hour's round
    run_ready()
    assert len(smtp_inbox.messages) == 1
    assert_clean(smtp_inbox)


def test_preferences_are_honoured(people, titled, smtp_inbox, login):
    Preference.objects.create(user=people["reviewer"], kind="mentioned", mode=NEVER)
    Preference.objects.create(user=people["admin"], kind="mentioned", mode=DIGEST)
    notes.add(get_endpoint("local"), people["admin2"], TARGET, None, "@reviewer @admin @support")
    run_ready()
    # never: nothing; digest: nothing yet; the default (immediately): a mail now.
    assert smtp_inbox.recipients() == {"support@example.test"}
    assert Notice.objects.filter(user=people["admin"], mode=DIGEST, mail=None).count() == 1
    assert not Notice.objects.filter(user=people["reviewer"]).exists()

    # The page shows the choices and saves them.
    client = login("support")
    page = client.get(reverse("notification_preferences")).content.decode()
    assert "You were mentioned in a note" in page and 'value="immediate"' in page
    answer = client.post(
        reverse("notification_preferences"), {"mentioned": "never", "approval_needed": "digest"}
    )
    assert answer.status_code == 302
    assert (
        dict(Preference.objects.filter(user=people["support"]).values_list("kind", "mode"))[
            "mentioned"
        ]
        == NEVER
    )
    assert (
        client.post(reverse("notification_preferences"), {"mentioned": "loud"}).status_code == 400
    )


def test_the_digest_groups_a_days_events_into_one_mail(people, titled, smtp_inbox, settings):
    settings.HERMES_UI_DIGEST_HOUR = 7
    # Days ahead of the clock: the scheduled digest round that run_ready() also runs uses
    # the real time, and must not pick these notices up whatever the hour of the run.
    day = timezone.now().replace(hour=9, minute=0, second=0, microsecond=0) + timedelta(days=2)
    for n, queue_id in enumerate((11, 12, 13)):
        event = events.Event(
            events.REVIEW_QUEUE_ASSIGNED,
            endpoint="local",
            actor=people["admin"].pk,
            users=(people["reviewer"].pk,),
            ids={"queue_id": queue_id},
        )
        outbox.notify(event, day + timedelta(hours=n))
    run_ready()
    assert smtp_inbox.messages == []  # the default for assignments is the digest

    assert outbox.digests(day + timedelta(hours=3)) == 0  # before the next 07:00
    assert outbox.digests(day + timedelta(hours=23)) == 1
    assert outbox.digests(day + timedelta(hours=23, minutes=5)) == 0  # once per day
    run_ready()
    (mail,) = smtp_inbox.to("reviewer@example.test")
    assert mail["Subject"] == "[Hermes UI] Daily digest"
    text = smtp_inbox.text(mail)
    assert "(3 events)" in text
    for queue_id in (11, 12, 13):
        assert f"You were assigned to review queue #{queue_id}" in text
    assert Mail.objects.get(digest=True).state == Mail.SENT


def test_a_failing_smtp_server_retries_then_shows_the_failure_to_admins(
    people, titled, settings, login
):
    from devtools.peer.launcher import free_port

    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", free_port()  # nobody listens
    settings.HERMES_UI_MAIL_ATTEMPTS, settings.HERMES_UI_MAIL_BACKOFF_SECONDS = 2, 60
    notes.add(get_endpoint("local"), people["admin2"], TARGET, None, "@reviewer")
    run_ready()
    mail = Mail.objects.get()
    assert mail.state == Mail.PENDING and mail.attempts == 1 and mail.last_error
    assert outbox.send(mail.pk) == Mail.FAILED
    page = login("admin").get(reverse("notification_mail")).content.decode()
    assert "You were mentioned in a note" in page and "ConnectionRefusedError" in page
    assert login("reviewer").get(reverse("notification_mail")).status_code == 403


def test_an_event_is_only_queued_in_the_request(people, titled, smtp_inbox):
    from django_tasks_db.models import DBTaskResult

    before = DBTaskResult.objects.count()
    events.emit(events.REVIEW_MENTIONED, endpoint="local", users=[people["reviewer"]])
    assert smtp_inbox.messages == [] and not Notice.objects.exists()
    assert DBTaskResult.objects.count() > before
    run_ready()
    assert smtp_inbox.recipients() == {"reviewer@example.test"}


def test_users_without_an_address_or_a_role_are_not_told(people, titled, smtp_inbox):
    people["reviewer"].email = ""
    people["reviewer"].save()
    notes.add(get_endpoint("local"), people["admin2"], TARGET, None, "@reviewer @support")
    run_ready()
    assert smtp_inbox.recipients() == {"support@example.test"}
    assert Notice.objects.get().mode == IMMEDIATE


def test_mails_go_only_to_people_still_active_and_in_the_role_when_sent(
    people, titled, smtp_inbox, settings
):
    from hermes_ui.access.grants import set_role

    settings.HERMES_UI_DIGEST_HOUR = 7
    day = timezone.now().replace(hour=9, minute=0, second=0, microsecond=0) + timedelta(days=2)
    assigned = events.Event(
        events.REVIEW_QUEUE_ASSIGNED,
        endpoint="local",
        actor=people["admin"].pk,
        users=(people["reviewer"].pk, people["support"].pk),
        ids={"queue_id": 11},
    )
    outbox.notify(assigned, day)  # a digest line for each
    asked = events.Event(
        events.DELETION_REQUESTED, endpoint="local", actor=people["admin"].pk, ids={"batch_id": 4}
    )
    outbox.notify(asked, day)  # an immediate mail to admin2, the other admin
    # Before anything is sent: the reviewer leaves, admin2 is no admin any more.
    people["reviewer"].is_active = False
    people["reviewer"].save(update_fields=["is_active"])
    set_role(people["admin2"], "support")
    outbox.digests(day + timedelta(hours=23))
    run_ready()
    assert smtp_inbox.recipients() == {"support@example.test"}
    unsent = Mail.objects.exclude(state=Mail.SENT)
    assert {(m.user.username, m.state, m.last_error) for m in unsent} == {
        ("reviewer", Mail.FAILED, "recipient_inactive"),
        ("admin2", Mail.FAILED, "recipient_role"),
    }
