"""The notifications' tasks: turn an event into notices, send a mail, the rounds."""

from datetime import datetime

from django.conf import settings
from django_tasks import task

from hermes_ui.platform import task_rounds

HOUR = 3600


@task()
def notify(event: dict, at: str) -> int:
    from hermes_ui.notifications import outbox
    from hermes_ui.platform import events

    found = events.Event(**{**event, "users": tuple(event["users"])})
    return len(outbox.notify(found, datetime.fromisoformat(at)))


@task()
def send_mail(mail_pk: int) -> str:
    from hermes_ui.notifications import outbox

    return outbox.send(mail_pk)


@task()
def digest_round() -> int:
    """Every ``HERMES_UI_ROUND_SECONDS``: the digests that are due."""
    from hermes_ui.notifications import outbox

    task_rounds.schedule(digest_round, settings.HERMES_UI_ROUND_SECONDS)
    return outbox.digests()


@task()
def waiting_round() -> int:
    """Hourly: review queues whose items waited over a day (their owners hear once a day)."""
    from hermes_ui.review import waiting

    task_rounds.schedule(waiting_round, HOUR)
    return waiting.announce()


@task()
def token_round() -> int:
    """Hourly: API tokens that expire within a week (each owner hears once per token)."""
    from hermes_ui.api_tokens import expiry

    task_rounds.schedule(token_round, HOUR)
    return expiry.announce()
