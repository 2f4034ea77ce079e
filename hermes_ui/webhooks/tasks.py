"""The webhooks' tasks: one attempt of a delivery, the fan-out of an event."""

from django_tasks import task


@task()
def deliver(delivery_id: str) -> str:
    from hermes_ui.webhooks import sending

    return sending.attempt(delivery_id)


@task()
def fan_out(event: str, endpoint: str, ids: dict, counts: dict, at: str) -> int:
    from hermes_ui.webhooks import outbox

    return len(outbox.fan_out(event, endpoint, ids, counts, at))
