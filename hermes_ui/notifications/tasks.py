"""The notifications' tasks: turn an event into notices, send a mail."""

from datetime import datetime

from django_tasks import task


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
