"""Sending turns through the dashboard's views in tests."""

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.chat import relay
from hermes_ui.chat.models import Turn
from hermes_ui.web.links import session_url

HX = {"HTTP_HX_REQUEST": "true"}


def send(client, session_id: str, message: str = "hello", *, htmx: bool = True, key=None, **extra):
    data = {"message": message, "form_key": key or mint_key(), **extra}
    url = session_url("local", session_id, "session_chat")
    return client.post(url, data, **(HX if htmx else {}))


def finished(turn_id: int, timeout: float = 60.0) -> Turn:
    assert relay.wait(turn_id, timeout), f"turn {turn_id} did not finish in {timeout} s"
    return Turn.objects.get(pk=turn_id)


def only_turn() -> Turn:
    turns = list(Turn.objects.all())
    assert len(turns) == 1, turns
    return turns[0]
