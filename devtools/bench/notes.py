"""Benchmark of notes and corrections on a long session page.

``python manage.py bench --only notes`` seeds its own peer (the demo seed,
whose longest session has 2,400 messages) and measures in a child process
with a scratch database, with ``HERMES_MESSAGES_PAGE_SIZE=2000`` so the page
draws 2,000 messages at once. Three pages, in alternating rounds: without
the notes templates (both emptied: what the page costs without the feature),
with them and no notes, and with a note on every third message and a
correction of every tenth assistant message (each drawn as a word diff).
Each prints its database queries too: the marks are read once per request,
so the number must not grow with the notes.
"""

from __future__ import annotations

import contextlib
import secrets
import statistics
import tempfile
from pathlib import Path

PAGE_SIZE = "2000"
ROUNDS = 5
PARKED = "bench-parked"


def run(stdout) -> None:
    from devtools.bench.child import measure_in_child, seeded_peer

    with seeded_peer(stdout, "notes", profile="demo") as (scratch, peer):
        extra = {"HERMES_MESSAGES_PAGE_SIZE": PAGE_SIZE}
        measure_in_child(stdout, "devtools.bench.notes", scratch, peer, extra)


def _measure() -> None:
    from devtools.bench.child import child_setup

    ep, say = child_setup()
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client

    from devtools.bench.child import median_ms
    from devtools.peer import demo_ids
    from hermes_ui.access.accounts import ensure_user
    from hermes_ui.hermes import client_for
    from hermes_ui.review import corrections, notes
    from hermes_ui.review.models import Correction, Note
    from hermes_ui.web.links import session_url

    ensure_user("bench-reviewer", "reviewer", secrets.token_urlsafe(18))
    user = get_user_model().objects.get(username="bench-reviewer")
    client = Client()
    client.force_login(user)
    sid = demo_ids.LONG_SESSION
    url = session_url(ep.id, sid)
    rows = client_for(ep).get_messages(sid)["data"]
    shown = rows[: int(PAGE_SIZE)]

    def page() -> tuple[float, int, int]:
        answer = client.get(url)
        assert answer.status_code == 200, answer.status_code
        queries: list[str] = []

        def count(execute, sql, params, many, context):
            queries.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            client.get(url)
        drawn = answer.content.decode().count('class="msg-review"')
        return median_ms(lambda: client.get(url), 3), len(queries), drawn

    raw = median_ms(lambda: client_for(ep).get_messages(sid), 5)
    for row in shown[::3]:
        notes.add(ep, user, sid, row["id"], f"bench note on {row['id']}")
    answers = [row for row in shown if row.get("role") == "assistant"][::10]
    for row in answers:
        text = corrections.original_text(row)
        corrections.save(ep, user, sid, row["id"], "Rather: " + text[: len(text) // 2])
    # The three pages in alternating rounds (the marks parked on another id for the first
    # two), so a change in the machine's load weighs on all alike.
    figures: dict[str, list] = {"none": [], "bare": [], "marked": []}
    for _ in range(ROUNDS):
        for model in (Note, Correction):
            model.objects.filter(session_id=sid).update(session_id=PARKED)
        with _without_notes_templates():
            figures["none"].append(page())
        figures["bare"].append(page())
        for model in (Note, Correction):
            model.objects.filter(session_id=PARKED).update(session_id=sid)
        figures["marked"].append(page())
    ms = {name: statistics.median(t for t, _, _ in runs) for name, runs in figures.items()}
    queries = {name: runs[0][1] for name, runs in figures.items()}
    say(
        f"session page of {figures['bare'][0][2]:,} drawn messages ({len(rows):,} in the "
        f"session), median of {ROUNDS} x 3 in alternating rounds; raw session_messages call "
        f"{raw:.0f} ms"
    )
    say(
        f"without the notes templates (empty _session_notes, _message_notes): {ms['none']:.0f} "
        f"ms ({queries['none']} queries); with them, no notes: {ms['bare']:.0f} ms "
        f"({queries['bare']} queries); with {len(shown[::3]):,} notes and {len(answers)} "
        f"corrections drawn as diffs: {ms['marked']:.0f} ms ({queries['marked']} queries)"
    )
    say(
        f"ratios: no notes / without templates {ms['bare'] / ms['none']:.2f}, "
        f"with notes / without templates {ms['marked'] / ms['none']:.2f}, "
        f"with notes / no notes {ms['marked'] / ms['bare']:.2f}"
    )


@contextlib.contextmanager
def _without_notes_templates():
    """The same page with the two notes templates empty: what drawing the region costs."""
    from django.template import engines

    engine = engines["django"].engine
    with tempfile.TemporaryDirectory(prefix="hermes-bench-notes-tpl-") as folder:
        (Path(folder) / "review").mkdir()
        for name in ("_session_notes.html", "_message_notes.html"):
            (Path(folder) / "review" / name).write_text("")
        engine.dirs.insert(0, Path(folder))
        _reset(engine)
        try:
            yield
        finally:
            engine.dirs.remove(Path(folder))
            _reset(engine)


def _reset(engine) -> None:
    for loader in engine.template_loaders:
        for inner in [loader, *getattr(loader, "loaders", [])]:
            if hasattr(inner, "reset"):
                inner.reset()


if __name__ == "__main__":
    _measure()
