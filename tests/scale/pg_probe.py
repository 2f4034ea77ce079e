"""Run inside ``manage.py shell`` against PostgreSQL: what SQLite lets pass and PostgreSQL refuses.

SQLite ignores ``max_length``, stores any integer and any text; PostgreSQL
enforces ``varchar(n)``, 32-bit ``integer`` and refuses NUL in text and JSON.
Each check prints ``ok <name>`` so the test sees exactly which one ran.
"""

import calendar
import datetime

from django.apps import apps
from django.db import IntegrityError, connection, transaction

from hermes_ui.index import store
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.search import queries


def main() -> None:
    assert connection.vendor == "postgresql", connection.vendor
    for model in apps.get_models():  # every table of every app maps and answers
        model.objects.values("pk").order_by("pk")[:1].exists()
    print("ok every-model")
    _index()
    _content()
    _turn_lock()


def _index() -> None:
    ep = get_endpoint("local")
    rows = [
        {
            "id": "pg-probe-1",
            "title": "Billing REPORT\x00 with a NUL",
            "source": "cli",
            "message_count": 2**40,
            "input_tokens": 2**70,
            "preview": "p" * 500,
            "started_at": 1.0,
            "ended_at": None,
        },
        {
            "id": "pg-probe-2",
            "title": "Ärger im Büro",
            "source": "api_server",
            "message_count": 3,
            "started_at": 2.0,
            "ended_at": 3.0,
            "end_reason": "user_exit",
        },
        {"id": "x" * 400, "title": "an id longer than the column"},
    ]
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


class _Transcripts:
    """Stands in for the Hermes client: ``session_messages`` payloads by session id."""

    def __init__(self, payloads: dict):
        self.payloads = payloads

    def get_messages(self, session_id: str) -> dict:
        return self.payloads[session_id]


def _msg(mid, role, text, day, **more):
    stamp = calendar.timegm(datetime.date(2026, 11, day).timetuple()) + 60.0
    return {"id": mid, "role": role, "content": text, "timestamp": stamp, **more}


def _marked(result) -> str:
    return " ".join(str(snippet.html) for snippet in result.snippets)


def _content() -> None:
    """The content index's PostgreSQL branch: tsvector column, GIN index, ts_rank, filters."""
    from django.db.models import Q

    from hermes_ui.index import content_store
    from hermes_ui.index.models import ContentMessage
    from hermes_ui.search import content_search
    from hermes_ui.search.syntax import parse

    ep = get_endpoint("local")
    store.upsert(
        ep,
        [
            {
                "id": "pg-content-a",
                "title": "Refund thread",
                "source": "cli",
                "message_count": 4,
                "started_at": 10.0,
                "ended_at": None,
            },
            {
                "id": "pg-content-root",
                "title": "Compressed away",
                "source": "telegram",
                "message_count": 2,
                "started_at": 11.0,
                "ended_at": 12.0,
                "end_reason": "compression",
            },
            {
                "id": "pg-content-tip",
                "title": "Deployment tip",
                "source": "telegram",
                "message_count": 2,
                "started_at": 12.0,
                "ended_at": 13.0,
                "end_reason": "user_exit",
                "parent_session_id": "pg-content-root",
            },
        ],
        2,
        listed=True,
    )
    a = [
        _msg(1, "user", "Where is my refund for order 4242?\x00", 2),
        _msg(2, "assistant", "Your refund went out as a credit note yesterday.", 2),
        _msg(3, "user", "<script>alert('x')</script> deploy the café fix", 3),
        _msg(4, "tool", "order 4242 shipped", 3, tool_call_id="c1", tool_name="find_order"),
        _msg(5, "assistant", "Mail ops@example.com about the BÜRO, v3.14", 3),
    ]
    tip = [
        _msg(1, "user", "Credit note asked for in the deployment review", 20),
        _msg(2, "assistant", "Deploying now; the credit note follows.", 20),
    ]
    client = _Transcripts(
        {
            "pg-content-a": {"session_id": "pg-content-a", "data": a},
            # Hermes resolves a compression root to its tip: one transcript, stored once.
            "pg-content-root": {"session_id": "pg-content-tip", "data": tip},
            "pg-content-tip": {"session_id": "pg-content-tip", "data": tip},
        }
    )
    todo = [(sid, "sig") for sid in ("pg-content-a", "pg-content-root", "pg-content-tip")]
    report = content_store.read(ep, client, todo, lambda done, total: None)
    assert (report.reads, report.messages) == (3, 7), report
    assert ContentMessage.objects.filter(session_id="pg-content-root").count() == 0
    print("ok content-store")

    def found(text, **options):
        page = content_search.search(
            ep, parse(text), after=options.pop("after", None), limit=options.pop("limit", 20)
        )
        return page, {r.session_id: r for r in page.results}

    page, by_id = found("refund")
    assert list(by_id) == ["pg-content-a"] and by_id["pg-content-a"].hits == 2, page
    assert by_id["pg-content-a"].row["title"] == "Refund thread"
    assert "<mark>refund</mark>" in _marked(by_id["pg-content-a"])
    page, by_id = found("4242")  # a number, and a tool result
    assert by_id["pg-content-a"].hits == 2, page
    page, by_id = found("CAFÉ")  # any case, beyond ASCII
    assert list(by_id) == ["pg-content-a"], page
    assert "<mark>café</mark>" in _marked(by_id["pg-content-a"])
    # Words inside markup, addresses and numbers, as the search box splits them
    # (PostgreSQL's own parser keeps "ops@example.com" and "3.14" whole).
    for word in ("alert", "example", "ops", "14", "büro", "BÜRO"):
        assert set(found(word)[1]) == {"pg-content-a"}, word
    assert "<mark>BÜRO</mark>" in _marked(found("büro")[1]["pg-content-a"])
    print("ok content-words")
    page, by_id = found('"credit note"')
    assert set(by_id) == {"pg-content-a", "pg-content-tip"} and page.messages == 3, page
    assert by_id["pg-content-tip"].read_for == ["pg-content-root"]
    assert "<mark>Credit note</mark> asked" in _marked(by_id["pg-content-tip"])
    assert "the <mark>credit note</mark> follows" in _marked(by_id["pg-content-tip"])
    assert found('"note credit"')[0].results == []  # a phrase keeps its order
    print("ok content-phrase")
    assert set(found("deploy*")[1]) == {"pg-content-a", "pg-content-tip"}
    assert set(found("deploy")[1]) == {"pg-content-a"}  # no stemming: only the whole word
    marked = _marked(found("deploy*")[1]["pg-content-tip"])
    assert "<mark>Deploying</mark>" in marked and "<mark>deployment</mark>" in marked, marked
    print("ok content-prefix")
    assert set(found('"credit note" role:user')[1]) == {"pg-content-tip"}
    assert set(found('"credit note" source:cli')[1]) == {"pg-content-a"}
    assert set(found('"credit note" closed:yes')[1]) == {"pg-content-tip"}
    assert set(found('"credit note" open:yes')[1]) == {"pg-content-a"}
    assert set(found('"credit note" after:2026-11-10')[1]) == {"pg-content-tip"}
    assert set(found('"credit note" before:2026-11-10')[1]) == {"pg-content-a"}
    print("ok content-filters")
    first, _ = found("credit", limit=1)
    assert len(first.results) == 1 and first.next_after, first
    later, _ = found("credit", limit=1, after=content_search.parse_after(first.next_after))
    assert len(later.results) == 1 and later.next_after is None, later
    assert {first.results[0].session_id, later.results[0].session_id} == {
        "pg-content-a",
        "pg-content-tip",
    }
    print("ok content-paging")
    html = _marked(found("alert")[1]["pg-content-a"])
    assert "<script>" not in html and "&lt;script&gt;<mark>alert</mark>(&#x27;x&#x27;)" in html, (
        html
    )
    print("ok content-escaping")
    assert content_store.completeness(ep)[0] >= 3
    sessions, messages = content_store.erase(Q(**ep.scope()), ["pg-content-a"])
    assert (sessions, messages) == (1, 5)
    assert found("refund")[0].results == [] and found("4242")[0].results == []
    assert set(found('"credit note"')[1]) == {"pg-content-tip"}
    print("ok content-erasure")


def _turn_lock() -> None:
    from hermes_ui.chat import store as chat_store
    from hermes_ui.chat.models import Turn, TurnEvent

    ep = get_endpoint("local")
    fields = {
        **ep.scope(),
        "requested_session_id": "pg-probe-1",
        "target_session_id": "pg-probe-1",
        "message": "hi",
        "runner": "probe",
        "state": "streaming",
    }
    turn = Turn.objects.create(form_key="probe-1", **fields)
    try:
        with transaction.atomic():
            Turn.objects.create(form_key="probe-2", **{**fields, "state": "pending"})
    except IntegrityError:
        print("ok turn-lock")
    TurnEvent.objects.create(
        turn=turn,
        seq=1,
        name="assistant.delta",
        data={"delta": "caf\u00e9 \U0001f600"},
        received_at=1.0,
    )
    assert TurnEvent.objects.get(turn=turn).data["delta"].endswith("\U0001f600")
    # A model's output may carry NUL, which PostgreSQL refuses in text and JSON.
    chat_store.save_events([(turn.pk, (2, "assistant.delta", {"delta": "a\x00b"}, 2.0))])
    chat_store.set_state(turn.pk, "completed", answer="a\x00b")
    turn.refresh_from_db()
    assert turn.answer == "ab" and turn.events.get(seq=2).data == {"delta": "ab"}
    print("ok turn-events")
