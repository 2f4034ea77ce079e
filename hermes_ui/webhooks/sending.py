"""One attempt of one delivery: claim it, check the address, POST, record, plan the next."""

from __future__ import annotations

import functools
import logging
import random
import ssl
import time
from datetime import timedelta

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from hermes_ui.platform import events, metrics
from hermes_ui.webhooks import addresses, signing
from hermes_ui.webhooks.models import Attempt, Delivery, Webhook

log = logging.getLogger(__name__)

MAX_DELAY = 3600.0  # seconds: retries at least hourly once the doubling gets there


@functools.cache
def _tls() -> ssl.SSLContext:
    """One verifying TLS context per process: building one per delivery (loading the
    CA bundle) cost more than the delivery itself."""
    return ssl.create_default_context()


def lease_seconds() -> float:
    # httpx's timeout bounds each of connect, write and read: an attempt may take
    # a few of them end to end.
    return 4 * settings.HERMES_UI_WEBHOOK_TIMEOUT + 5


def delay(attempt: int) -> float:
    """Seconds before the attempt after ``attempt`` (1-based): base x 2^(n-1) plus up to
    a quarter of that as jitter, so retries spread out and each gap is longer than
    the one before."""
    base = settings.HERMES_UI_WEBHOOK_BACKOFF_SECONDS * 2 ** (attempt - 1)
    return min(MAX_DELAY, base + random.uniform(0, base / 4))  # noqa: S311 (jitter)


def claim(delivery_id: str) -> Delivery | None:
    now = timezone.now()
    claimable = Q(state=Delivery.PENDING, next_attempt_at__lte=now) | Q(
        state=Delivery.SENDING, lease_until__lt=now
    )
    won = Delivery.objects.filter(claimable, pk=delivery_id).update(
        state=Delivery.SENDING,
        lease_until=now + timedelta(seconds=lease_seconds()),
        attempts=F("attempts") + 1,
    )
    if not won:
        return None
    return Delivery.objects.select_related("webhook").get(pk=delivery_id)


def attempt(delivery_id: str) -> str:
    """Run one attempt if the delivery is due; returns its outcome (or "skipped")."""
    delivery = claim(delivery_id)
    if delivery is None:
        return "skipped"
    hook = delivery.webhook
    started, clock = timezone.now(), time.monotonic()
    code, outcome = None, "ok"
    if not hook.active:
        outcome = "disabled"
    else:
        code, outcome = post(hook, delivery)
    took = int((time.monotonic() - clock) * 1000)
    Attempt.objects.create(
        delivery=delivery,
        number=delivery.attempts,
        started_at=started,
        milliseconds=took,
        status_code=code,
        outcome=outcome,
    )
    if outcome == "ok":
        _delivered(delivery, code)
        metrics.DELIVERIES.labels("webhook", "delivered").inc()
    else:
        given_up = _failed(delivery, code, outcome)
        metrics.DELIVERIES.labels("webhook", "failed" if given_up else "retrying").inc()
    log.info(
        "webhook=%s delivery=%s attempt=%s outcome=%s ms=%s",
        hook.pk,
        delivery.pk,
        delivery.attempts,
        outcome,
        took,
    )
    return outcome


def post(hook: Webhook, delivery: Delivery) -> tuple[int | None, str]:
    """POST the body to the checked address; (status code, outcome). Never raises."""
    try:
        target = addresses.resolve(hook.url)
    except addresses.Refused as refused:
        return None, refused.code
    raw = delivery.body.encode()
    headers = signing.headers(hook.secret, delivery.event, str(delivery.pk), raw)
    headers["Host"] = target.host_header
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    try:
        with httpx.Client(
            timeout=settings.HERMES_UI_WEBHOOK_TIMEOUT,
            follow_redirects=False,
            trust_env=False,
            verify=_tls(),
        ) as client:
            response = client.post(
                target.connect_url, content=raw, headers=headers, extensions=extensions
            )
    except httpx.TimeoutException:
        return None, "timeout"
    except httpx.ConnectError:
        return None, "connect"
    except httpx.HTTPError as exc:
        return None, f"transport_{type(exc).__name__}"[:40]
    if 200 <= response.status_code < 300:
        return response.status_code, "ok"
    if 300 <= response.status_code < 400:
        return response.status_code, "redirect"  # not followed: it could point anywhere
    return response.status_code, f"http_{response.status_code}"


def _delivered(delivery: Delivery, code: int | None) -> None:
    now = timezone.now()
    Delivery.objects.filter(pk=delivery.pk).update(
        state=Delivery.DELIVERED, last_code=code, last_error="", finished_at=now, lease_until=None
    )
    Webhook.objects.filter(pk=delivery.webhook_id).update(failing_since=None)


def _failed(delivery: Delivery, code: int | None, outcome: str) -> bool:
    """Record a failed attempt; True when the delivery is given up."""
    from hermes_ui.webhooks import tasks

    now = timezone.now()
    give_up = timedelta(seconds=settings.HERMES_UI_WEBHOOK_GIVE_UP_SECONDS)
    given_up = (
        now - delivery.created_at >= give_up
        or outcome == "disabled"
        or outcome in addresses.PERMANENT
    )
    with transaction.atomic():
        if given_up:
            Delivery.objects.filter(pk=delivery.pk).update(
                state=Delivery.FAILED,
                last_code=code,
                last_error=outcome,
                finished_at=now,
                lease_until=None,
            )
        else:
            when = now + timedelta(seconds=delay(delivery.attempts))
            Delivery.objects.filter(pk=delivery.pk).update(
                state=Delivery.PENDING,
                last_code=code,
                last_error=outcome,
                next_attempt_at=when,
                lease_until=None,
            )
            tasks.deliver.using(run_after=when).enqueue(str(delivery.pk))
    if outcome != "disabled":
        _count_failure(delivery.webhook, now, give_up)
    return given_up


def _count_failure(hook: Webhook, now, give_up: timedelta) -> None:
    Webhook.objects.filter(pk=hook.pk, failing_since__isnull=True).update(failing_since=now)
    hook.refresh_from_db(fields=["failing_since", "active"])
    if hook.active and hook.failing_since and now - hook.failing_since >= give_up:
        disabled = Webhook.objects.filter(pk=hook.pk, active=True).update(
            active=False, disabled_reason="every delivery failed for a day"
        )
        if disabled:
            log.warning("webhook=%s disabled: every delivery failed for a day", hook.pk)
            events.emit(events.WEBHOOK_DISABLED, ids={"webhook_id": hook.pk})
