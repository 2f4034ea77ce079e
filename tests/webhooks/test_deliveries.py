"""Webhook deliveries to a real HTTP receiver on loopback, the queue run in this process.

Retries, backoff and restarts need the real worker: ``test_worker.py``.
"""

import logging
import time
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from hermes_ui.notifications.models import Notice
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.tags import tagging
from hermes_ui.tags.models import Tag
from hermes_ui.webhooks import addresses, outbox, sending
from hermes_ui.webhooks.models import Attempt, Delivery, Webhook
from tests.support.tasks import run_ready
from tests.webhooks.receiver import HANG

pytestmark = pytest.mark.django_db

SECRET = "whsec-test-0b5e7c1d9a"


def hook(receiver, events=("session.tagged",), **fields) -> Webhook:
    return Webhook.objects.create(url=receiver.url, secret=SECRET, events=list(events), **fields)


def test_a_tagged_session_is_delivered_signed_with_ids_and_counts_only(
    hook_receiver, users, mock_endpoint, caplog
):
    caplog.set_level(logging.DEBUG)
    wanted = hook(hook_receiver)
    hook(hook_receiver, events=("endpoint.down",))  # not subscribed: gets nothing
    tag = Tag.objects.create(name="refund", colour="red")
    tagging.change(get_endpoint("local"), users["reviewer"], tagging.ADD, tag, ["s1", "s2"])
    run_ready()

    (got,) = hook_receiver.received
    assert got.signed_by(SECRET) and not got.signed_by("another secret")
    assert got.headers["X-Hermes-UI-Event"] == "session.tagged"
    assert got.headers["Content-Type"] == "application/json"
    body = got.body
    assert set(body) == {"event", "delivery", "created_at", "endpoint", "ids", "counts"}
    assert body["delivery"] == got.headers["X-Hermes-UI-Delivery"]
    assert body["event"] == "session.tagged" and body["endpoint"] == "local"
    assert body["ids"] == {"tag_id": tag.pk, "sessions": ["s1", "s2"]}
    assert body["counts"] == {"sessions": 2}
    delivery = Delivery.objects.get()
    assert delivery.webhook == wanted and delivery.state == Delivery.DELIVERED
    assert str(delivery.pk) == body["delivery"]
    assert [(a.number, a.status_code, a.outcome) for a in delivery.log.all()] == [(1, 200, "ok")]
    assert SECRET not in caplog.text and "refund" not in caplog.text


def test_a_hanging_receiver_is_cut_off_by_the_timeout(hook_receiver, settings):
    settings.HERMES_UI_WEBHOOK_TIMEOUT = 0.5
    settings.HERMES_UI_WEBHOOK_BACKOFF_SECONDS = 60
    hook_receiver.script = [HANG]
    delivery = outbox.ping(hook(hook_receiver))
    started = time.monotonic()
    run_ready()
    assert time.monotonic() - started < 5
    assert len(hook_receiver.received) == 1
    delivery.refresh_from_db()
    (attempt,) = delivery.log.all()
    assert attempt.outcome == "timeout" and attempt.status_code is None
    assert attempt.milliseconds < 3000
    # Not failed: it goes again after the backoff.
    assert delivery.state == Delivery.PENDING and delivery.next_attempt_at > timezone.now()


def test_redirects_are_not_followed(hook_receiver):
    hook_receiver.script = [302]
    delivery = outbox.ping(hook(hook_receiver))
    run_ready()
    assert len(hook_receiver.received) == 1
    assert Attempt.objects.get(delivery=delivery).outcome == "redirect"


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1:{port}/hook",
        "https://localhost:{port}/hook",
        "https://10.1.2.3/hook",
        "https://[::1]:{port}/hook",
        "https://169.254.169.254/latest/meta-data",
    ],
)
def test_loopback_and_private_addresses_are_refused_without_the_allow_list(
    url, hook_receiver, settings
):
    settings.HERMES_UI_WEBHOOK_ALLOW_HOSTS = []
    url = url.format(port=hook_receiver.server.server_address[1])
    with pytest.raises(addresses.Refused) as refused:
        addresses.resolve(url)
    assert refused.value.code == "refused_address"
    delivery = outbox.ping(Webhook.objects.create(url=url, secret=SECRET, events=[]))
    assert sending.attempt(str(delivery.pk)) == "refused_address"
    assert hook_receiver.received == []


def test_plain_http_needs_the_allow_list(hook_receiver, settings):
    settings.HERMES_UI_WEBHOOK_ALLOW_HOSTS = []
    with pytest.raises(addresses.Refused) as refused:
        addresses.resolve(hook_receiver.url)
    assert refused.value.code == "not_https"
    settings.HERMES_UI_WEBHOOK_ALLOW_HOSTS = ["127.0.0.1"]
    assert addresses.resolve(hook_receiver.url).address == "127.0.0.1"


def test_the_pages_add_a_webhook_send_a_test_event_and_redeliver(hook_receiver, login, caplog):
    caplog.set_level(logging.DEBUG)
    admin = login("admin")
    answer = admin.post(reverse("webhook_list"), {"url": hook_receiver.url, "events": ["ping"]})
    assert answer.status_code == 400  # "ping" is not an event one subscribes to
    answer = admin.post(
        reverse("webhook_list"),
        {"url": hook_receiver.url, "events": ["deletion.requested"], "active": "on"},
    )
    assert answer.status_code == 302
    created = Webhook.objects.get()
    page = admin.get(answer["Location"]).content.decode()
    assert created.secret in page  # shown this once
    assert created.secret not in admin.get(answer["Location"]).content.decode()

    admin.post(reverse("webhook_ping", kwargs={"pk": created.pk}))
    run_ready()
    (first,) = hook_receiver.received
    assert first.headers["X-Hermes-UI-Event"] == "ping" and first.signed_by(created.secret)
    delivery = Delivery.objects.get()
    log = admin.get(reverse("webhook_detail", kwargs={"pk": created.pk})).content.decode()
    assert str(delivery.pk) in log and "delivered" in log and "· 200 · ok" in log

    url = reverse("webhook_redeliver", kwargs={"pk": created.pk, "delivery": delivery.pk})
    assert admin.post(url).status_code == 302
    run_ready()
    assert [r.headers["X-Hermes-UI-Delivery"] for r in hook_receiver.received] == [
        str(delivery.pk)
    ] * 2
    assert delivery.log.count() == 2
    assert created.secret not in caplog.text


def test_a_webhook_failing_for_a_day_is_disabled_and_admins_are_told(
    hook_receiver, users, settings
):
    for user in users.values():
        user.email = f"{user.username}@example.test"
        user.save()
    hook_receiver.script = [500]
    failing = hook(hook_receiver, failing_since=timezone.now() - timedelta(days=1, minutes=1))
    delivery = outbox.ping(failing)
    run_ready()
    failing.refresh_from_db()
    assert not failing.active and "a day" in failing.disabled_reason
    told = Notice.objects.filter(kind="webhook_disabled")
    assert sorted(n.user.username for n in told) == ["admin", "admin2"]
    delivery.refresh_from_db()
    assert delivery.state == Delivery.PENDING  # its next attempt finds the webhook disabled
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
    assert sending.attempt(str(delivery.pk)) == "disabled"
    delivery.refresh_from_db()
    assert delivery.state == Delivery.FAILED and len(hook_receiver.received) == 1


def test_a_successful_delivery_ends_the_failing_streak(hook_receiver):
    hooked = hook(hook_receiver, failing_since=timezone.now() - timedelta(hours=3))
    outbox.ping(hooked)
    run_ready()
    hooked.refresh_from_db()
    assert hooked.active and hooked.failing_since is None


def test_the_page_showing_the_secret_is_never_stored_by_a_cache(hook_receiver, login):
    admin = login("admin")
    answer = admin.post(
        reverse("webhook_list"),
        {"url": hook_receiver.url, "events": ["deletion.requested"], "active": "on"},
    )
    page = admin.get(answer["Location"])
    assert Webhook.objects.get().secret in page.content.decode()
    assert "no-store" in page["Cache-Control"]
