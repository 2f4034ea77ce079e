"""Run inside ``manage.py shell`` against PostgreSQL: what SQLite lets pass and PostgreSQL refuses.

SQLite ignores ``max_length``, stores any integer and any text; PostgreSQL
enforces ``varchar(n)``, 32-bit ``integer`` and refuses NUL in text and JSON.
Each check prints ``ok <name>`` so the test sees exactly which one ran.
"""

from django.apps import apps
from django.db import IntegrityError, connection, transaction

from hermes_ui.endpoints import get_endpoint
from hermes_ui.index import queries, store


def main() -> None:
    assert connection.vendor == "postgresql", connection.vendor
    for model in apps.get_models():  # every table of every app maps and answers
        model.objects.values("pk").order_by("pk")[:1].exists()
    print("ok every-model")
    _index()
    _turn_lock()


def _index() -> None:
    ep = get_endpoint("local")
    rows = [
        {"id": "pg-probe-1", "title": "Billing REPORT\x00 with a NUL", "source": "cli",
         "message_count": 2**40, "input_tokens": 2**70, "preview": "p" * 500,
         "started_at": 1.0, "ended_at": None},
        {"id": "pg-probe-2", "title": "Ärger im Büro", "source": "api_server",
         "message_count": 3, "started_at": 2.0, "ended_at": 3.0, "end_reason": "user_exit"},
        {"id": "x" * 400, "title": "an id longer than the column"},
    ]  # fmt: skip
    store.upsert(ep, rows, 1, listed=True)
    print("ok index-upsert")
    found = queries.search(ep, snapshot=1, q="billing report")
    assert [r["id"] for r in found.rows] == ["pg-probe-1"], found.rows
    assert queries.search(ep, snapshot=1, q="ÄRGER").total == 1  # case-insensitive beyond ASCII
    assert queries.search(ep, snapshot=1, q="50%_").total == 0  # LIKE wildcards are literal
    closed = queries.search(ep, snapshot=1, state="closed", source="api_server")
    assert [r["id"] for r in closed.rows] == ["pg-probe-2"], closed.rows
    first = queries.search(ep, snapshot=1, limit=1)
    later = queries.search(ep, snapshot=1, limit=1, after=queries.parse_after(first.next_after))
    assert first.rows[0]["id"] != later.rows[0]["id"]
    print("ok index-search")


def _turn_lock() -> None:
    from hermes_ui.chat import store as chat_store
    from hermes_ui.chat.models import Turn, TurnEvent

    ep = get_endpoint("local")
    fields = {**ep.scope(), "requested_session_id": "pg-probe-1", "target_session_id": "pg-probe-1",
              "message": "hi", "runner": "probe", "state": "streaming"}  # fmt: skip
    turn = Turn.objects.create(form_key="probe-1", **fields)
    try:
        with transaction.atomic():
            Turn.objects.create(form_key="probe-2", **{**fields, "state": "pending"})
    except IntegrityError:
        print("ok turn-lock")
    TurnEvent.objects.create(turn=turn, seq=1, name="assistant.delta",
                             data={"delta": "caf\u00e9 \U0001f600"}, received_at=1.0)  # fmt: skip
    assert TurnEvent.objects.get(turn=turn).data["delta"].endswith("\U0001f600")
    # A model's output may carry NUL, which PostgreSQL refuses in text and JSON.
    chat_store.save_events([(turn.pk, (2, "assistant.delta", {"delta": "a\x00b"}, 2.0))])
    chat_store.set_state(turn.pk, "completed", answer="a\x00b")
    turn.refresh_from_db()
    assert turn.answer == "ab" and turn.events.get(seq=2).data == {"delta": "ab"}
    print("ok turn-events")
