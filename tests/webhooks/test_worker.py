"""Deliveries run by a real ``manage.py db_worker``: retries with backoff, and a restart.

The worker is a process of its own on the test database; the receiver is a
real HTTP server on loopback, allowed through HERMES_UI_WEBHOOK_ALLOW_HOSTS
in the worker's environment (as an operator would set it).
"""

import itertools

import pytest

from hermes_ui.background import rounds, schedule
from hermes_ui.webhooks import outbox
from hermes_ui.webhooks.models import Delivery, Webhook
from tests.support.waiting import until
from tests.webhooks.receiver import HANG

SECRET = "whsec-worker-5d1c"
BASE = 0.3  # seconds: the first retry's delay in these tests


def worker_env(**more) -> dict[str, str]:
    return {"HERMES_UI_WEBHOOK_ALLOW_HOSTS": "127.0.0.1", **more}


def state(delivery: Delivery) -> str:
    delivery.refresh_from_db()
    return delivery.state


@pytest.fixture
def webhook(hook_receiver, transactional_db):
    return Webhook.objects.create(url=hook_receiver.url, secret=SECRET, events=[])


def test_500_three_times_then_200_is_four_attempts_with_growing_gaps(
    hook_receiver, webhook, start_db_worker
):
    hook_receiver.script = [500, 500, 500]
    worker = start_db_worker(**worker_env(HERMES_UI_WEBHOOK_BACKOFF_SECONDS=str(BASE)))
    delivery = outbox.ping(webhook)
    until(lambda: state(delivery) == Delivery.DELIVERED, 60, "not delivered: " + worker.log())

    got = hook_receiver.received
    assert len(got) == 4
    assert {r.headers["X-Hermes-UI-Delivery"] for r in got} == {str(delivery.pk)}
    assert all(r.signed_by(SECRET) for r in got)
    gaps = [b.at - a.at for a, b in itertools.pairwise(got)]
    # base x 2^(n-1), plus up to a quarter of it as jitter: each gap longer than the last.
    for n, gap in enumerate(gaps):
        assert gap >= BASE * 2**n * 0.95, gaps
    assert gaps[0] < gaps[1] < gaps[2], gaps
    assert [(a.number, a.status_code) for a in delivery.log.all()] == [
        (1, 500),
        (2, 500),
        (3, 500),
        (4, 200),
    ]


def test_a_delivery_in_flight_when_the_worker_is_killed_is_delivered_after_a_restart(
    hook_receiver, webhook, start_db_worker
):
    env = worker_env(HERMES_UI_WEBHOOK_TIMEOUT="1", HERMES_UI_ROUND_SECONDS="0.3")
    hook_receiver.script = [HANG]  # the first attempt is in flight until the worker dies
    # The recovery round, as the periodic worker starts it.
    assert rounds.ensure(schedule.run, "webhook-recovery")
    first = start_db_worker(**env)
    delivery = outbox.ping(webhook)
    until(lambda: hook_receiver.received, 30, "the worker never sent it: " + first.log())
    first.kill()
    assert state(delivery) == Delivery.SENDING  # left as the crash left it

    start_db_worker(**env)
    until(lambda: state(delivery) == Delivery.DELIVERED, 60, "not delivered after the restart")
    got = hook_receiver.received
    assert len(got) >= 2
    assert {r.headers["X-Hermes-UI-Delivery"] for r in got} == {str(delivery.pk)}
    assert {r.raw for r in got} == {delivery.body.encode()}
