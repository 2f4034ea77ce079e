"""A deletion erases the dashboard's own copies: canaries against the real Hermes peer.

Canaries go into a title, a preview (the first user message), a chat turn's
message and answer, and a tool call's arguments, through the real peer and
the dashboard's own views. After the deletion is executed through the
four-eyes workflow, no table, no raw database file (main file and WAL) and
nothing under ``DATA_DIR`` holds any of them. Every search is first run
before the deletion and must find the canary there, so a 0 afterwards means
erased, not "never looked in the right place".
"""

import uuid
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache, caches
from django.db import connection

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.chat import relay
from hermes_ui.chat.models import Turn, TurnEvent
from hermes_ui.deletion.models import Status
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient
from hermes_ui.index import sync
from hermes_ui.index.forks import remember_fork
from hermes_ui.index.models import ContentMessage, IndexedSession, KnownFork
from hermes_ui.lineage import render
from hermes_ui.lineage.erase import cached_digests
from hermes_ui.sessions.cache import transcript_cache_key
from hermes_ui.web.links import session_url
from tests.chat.turns import send
from tests.deletion.helpers import (
    db_files,
    decide,
    execute,
    file_hits,
    page,
    refresh,
    request_deletion,
    table_hits,
)

pytestmark = [pytest.mark.peer, pytest.mark.django_db(transaction=True)]


def _canary(where: str) -> str:
    return f"CANARY{where.upper()}{uuid.uuid4().hex[:12]}"


def _data_files() -> list[Path]:
    return [p for p in Path(django_settings.DATA_DIR).rglob("*") if p.is_file()]


def _cached_svgs() -> list[str]:
    svgs = caches[render.CACHE_ALIAS]
    return [s for d in cached_digests(svgs) if isinstance(s := svgs.get(d), str)]


def _turn(client, session_id: str, message: str) -> Turn:
    assert send(client, session_id, message).status_code == 200
    turn = Turn.objects.filter(target_session_id=session_id).order_by("-id").first()
    assert relay.wait(turn.pk, 60), "the turn did not finish"
    turn.refresh_from_db()
    assert turn.state == "completed", (turn.state, turn.error_code)
    return turn


def test_an_executed_deletion_leaves_no_canary_in_tables_database_files_or_data(
    peer_endpoint, login, clock
):
    assert connection.vendor == "sqlite"
    with connection.cursor() as cursor:
        assert cursor.execute("PRAGMA secure_delete").fetchone() == (1,)
    hermes = HermesClient(peer_endpoint)
    support, admin, admin2 = login("support"), login("admin"), login("admin2")
    title, preview, message, tool_arg = (_canary(w) for w in ("title", "preview", "msg", "tool"))

    # A plain parent forked into the session to delete: the lineage drawing
    # shows the canary title, and the fork record names the session.
    parent = f"erasure-parent-{uuid.uuid4().hex[:8]}"
    hermes.create_session(idempotency_key=mint_key(), session_id=parent, title=f"P {parent}")
    sid = hermes.fork_session(parent, idempotency_key=mint_key(), title=f"T {title}").id
    remember_fork(peer_endpoint, parent, sid)
    turns = [
        _turn(support, sid, f"{preview} first words"),
        _turn(support, sid, f"please {message}"),
        _turn(support, sid, f"plan {tool_arg} [[tool:todo]] [[args]]"),
    ]
    assert message in turns[1].answer  # the peer echoes it: the answer is a canary too
    tool_events = TurnEvent.objects.filter(turn=turns[2], data__icontains=tool_arg)
    assert tool_events.exists(), "the tool call's arguments should carry the canary"
    sync.sync(peer_endpoint, full=True)
    row = IndexedSession.objects.get(session_id=sid)
    assert title in row.title and preview in row.preview
    lineage = support.get(session_url("local", sid, "lineage_page"))
    assert lineage.status_code == 200 and title in lineage.content.decode()
    assert support.get(session_url("local", sid)).status_code == 200  # caches the transcript
    assert cache.get(transcript_cache_key(peer_endpoint, sid)) is not None
    canaries = (title, preview, message, tool_arg)
    # The content index holds the transcript, and the search page finds the message in it.
    assert ContentMessage.objects.filter(session_id=sid, text__contains=message).exists()
    found = support.get("/e/local/sessions/", {"q": message}).content.decode()
    assert 'id="content-results"' in found and 'class="snippet-link"' in found
    for canary in canaries:  # every search finds it before the deletion
        assert table_hits(canary), canary
        assert file_hits(canary, db_files()), canary
    assert file_hits(title, _data_files()) and any(title in s for s in _cached_svgs())

    case = request_deletion(support, sid, "The data subject asked for erasure")
    assert decide(admin, case.pk).status_code == 302
    assert execute(admin2, case.pk).status_code == 302
    case = refresh(case)
    assert case.status == Status.EXECUTED
    with pytest.raises(e.NotFound):
        hermes.get_session(sid)
    erased = case.result["erased"]
    assert erased["turns"] == 3 and erased["turn_events"] >= 3
    assert erased["index_rows"] == 1 and erased["forks"] == 1
    assert erased["transcripts"] >= 1 and erased["drawings"] >= 1
    assert erased["content_messages"] >= 3
    gone = support.get("/e/local/sessions/", {"q": message}).content.decode()
    assert 'id="content-none"' in gone and 'class="snippet-link"' not in gone
    shown = page(admin2, case.pk)
    assert "Erased from this dashboard" in shown and "<strong>3</strong> chat turns" in shown

    for turn in turns:
        assert support.get(f"/e/local/turns/{turn.pk}/").status_code == 404
    assert not Turn.objects.filter(target_session_id=sid).exists()
    assert not KnownFork.objects.filter(child_id=sid).exists()
    assert cache.get(transcript_cache_key(peer_endpoint, sid)) is None
    for canary in canaries:
        assert table_hits(canary) == [], canary
        assert file_hits(canary, db_files()) == [], canary
        assert file_hits(canary, _data_files()) == [], canary
        assert not any(canary in svg for svg in _cached_svgs()), canary
    # The parent is untouched in Hermes and in the index.
    assert hermes.get_session(parent).id == parent
    assert IndexedSession.objects.filter(session_id=parent).exists()
