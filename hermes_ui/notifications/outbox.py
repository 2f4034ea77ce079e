"""Notices from events, mails from notices, sent with retries; the daily digest.

An event becomes one notice per person told (their mode decides: a mail at
once, a line in tomorrow's digest, or nothing). Sending happens in tasks:
an SMTP failure retries with a doubling delay, ``HERMES_UI_MAIL_ATTEMPTS``
in all, then the mail is failed and listed for admins
(``/notifications/mail/``). Nothing here runs in the request that caused
the event: its receiver only enqueues ``tasks.notify``.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.db import transaction
from django.utils import timezone

from hermes_ui.notifications import compose, kinds, preferences
from hermes_ui.notifications.models import DIGEST, IMMEDIATE, NEVER, Mail, Notice
from hermes_ui.platform import events, metrics
from hermes_ui.platform.endpoints import all_endpoints

log = logging.getLogger(__name__)

ONCE_A_DAY = {kinds.QUEUE_WAITING.key}  # told at most once a day per queue


def _fingerprint(endpoint_id: str) -> str:
    for ep in all_endpoints():
        if ep.id == endpoint_id:
            return ep.fingerprint
    return ""


def notify(event: events.Event, at: datetime) -> list[Notice]:
    kind = kinds.BY_EVENT.get(event.name)
    if kind is None:
        return []
    made = []
    ids = dict(event.ids)
    session_id = str(ids.pop("session_id", "") or "")
    for user in kinds.audience(event):
        mode = preferences.mode(user.pk, kind.key)
        if mode == NEVER or not user.email:
            continue
        if kind.key in ONCE_A_DAY and _told_today(user, kind.key, ids, at):
            continue
        with transaction.atomic():
            notice = Notice.objects.create(
                user=user,
                kind=kind.key,
                event=event.name,
                mode=mode,
                endpoint=event.endpoint,
                endpoint_fp=_fingerprint(event.endpoint) if event.endpoint else "",
                session_id=session_id,
                ids=ids,
                counts=event.counts,
                created_at=at,
            )
            if mode == IMMEDIATE:
                mail = Mail.objects.create(user=user, subject=compose.subject(notice))
                notice.mail = mail
                notice.save(update_fields=["mail"])
                _enqueue_send(mail.pk)
        made.append(notice)
    return made


def _told_today(user, kind: str, ids: dict, at: datetime) -> bool:
    return Notice.objects.filter(
        user=user, kind=kind, ids=ids, created_at__gt=at - timedelta(hours=23)
    ).exists()


def _enqueue_send(mail_pk: int, when: datetime | None = None) -> None:
    from hermes_ui.notifications import tasks

    task = tasks.send_mail if when is None else tasks.send_mail.using(run_after=when)
    task.enqueue(mail_pk)


def send(mail_pk: int) -> str:
    """One attempt at one mail; returns its state afterwards."""
    mail = Mail.objects.select_related("user").filter(pk=mail_pk, state=Mail.PENDING).first()
    if mail is None:
        return "skipped"
    notices = list(mail.notices.order_by("created_at", "id"))
    if not notices or not mail.user.email:
        Mail.objects.filter(pk=mail.pk).update(state=Mail.FAILED, last_error="nothing_to_send")
        return Mail.FAILED
    # Whoever was deactivated or lost the role since the event is told nothing now,
    # and a digest leaves out what its reader may no longer see (the one rule).
    gone = kinds.refusal(mail.user, notices)
    if gone:
        Mail.objects.filter(pk=mail.pk).update(state=Mail.FAILED, last_error=gone)
        return Mail.FAILED
    notices = kinds.told(mail.user, notices)
    message = EmailMessage(
        subject=mail.subject,
        body=compose.body(notices, digest=mail.digest),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[mail.user.email],
        headers={
            "List-Unsubscribe": f"<{compose.preferences_url()}>",
            "Auto-Submitted": "auto-generated",
        },
        connection=get_connection(timeout=settings.EMAIL_TIMEOUT),
    )
    attempts = mail.attempts + 1
    try:
        message.send()
    except Exception as exc:  # SMTP, socket, TLS: all worth another try
        error = type(exc).__name__[:60]
        if attempts >= settings.HERMES_UI_MAIL_ATTEMPTS:
            Mail.objects.filter(pk=mail.pk).update(
                state=Mail.FAILED, attempts=attempts, last_error=error
            )
            log.warning("mail=%s failed for good after %s attempts: %s", mail.pk, attempts, error)
            metrics.DELIVERIES.labels("mail", "failed").inc()
            return Mail.FAILED
        wait = settings.HERMES_UI_MAIL_BACKOFF_SECONDS * 2 ** (attempts - 1)
        with transaction.atomic():
            Mail.objects.filter(pk=mail.pk).update(attempts=attempts, last_error=error)
            _enqueue_send(mail.pk, timezone.now() + timedelta(seconds=wait))
        log.info("mail=%s attempt %s failed (%s); again in %.0f s", mail.pk, attempts, error, wait)
        metrics.DELIVERIES.labels("mail", "retrying").inc()
        return Mail.PENDING
    Mail.objects.filter(pk=mail.pk).update(
        state=Mail.SENT, attempts=attempts, last_error="", sent_at=timezone.now()
    )
    metrics.DELIVERIES.labels("mail", "delivered").inc()
    return Mail.SENT


def digest_anchor(now: datetime) -> datetime:
    """The last ``HERMES_UI_DIGEST_HOUR``:00 (UTC) at or before ``now``: a digest holds
    what happened before it, and goes once per anchor."""
    anchor = now.replace(hour=settings.HERMES_UI_DIGEST_HOUR, minute=0, second=0, microsecond=0)
    return anchor if anchor <= now else anchor - timedelta(days=1)


def digests(now: datetime | None = None) -> int:
    """Mail each person the digest notices from before the last anchor. Returns mails made."""
    now = now or timezone.now()
    anchor = digest_anchor(now)
    waiting = Notice.objects.filter(mode=DIGEST, mail__isnull=True, created_at__lt=anchor)
    made = 0
    for user_pk in sorted(set(waiting.values_list("user_id", flat=True))):
        if Mail.objects.filter(user_id=user_pk, digest=True, created_at__gte=anchor).exists():
            continue
        with transaction.atomic():
            mail = Mail.objects.create(
                user_id=user_pk, digest=True, subject=compose.digest_subject()
            )
            waiting.filter(user_id=user_pk).update(mail=mail)
            _enqueue_send(mail.pk)
        made += 1
    return made
