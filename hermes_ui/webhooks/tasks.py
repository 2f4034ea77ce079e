"""The webhooks' tasks: one attempt of a delivery, and the round that recovers lost ones."""

from django.conf import settings
from django_tasks import task

from hermes_ui.platform import task_rounds


@task()
def deliver(delivery_id: str) -> str:
    from hermes_ui.webhooks import sending

    return sending.attempt(delivery_id)


@task()
def fan_out(event: str, endpoint: str, ids: dict, counts: dict, at: str) -> int:
    from hermes_ui.webhooks import outbox

    return len(outbox.fan_out(event, endpoint, ids, counts, at))


@task()
def sweep() -> int:
    from hermes_ui.webhooks import erase, rounds

    task_rounds.schedule(sweep, settings.HERMES_UI_ROUND_SECONDS)
    erase.prune()
    return rounds.recover()
