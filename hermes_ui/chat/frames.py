"""A turn as server-sent events of HTML fragments, for htmx's SSE extension.

Frames (each ``id:`` is the last provider event it reflects, so a browser's
automatic reconnect resumes with ``Last-Event-ID``):

* ``snapshot``: the whole turn body (first frame of a fresh connection, and
  the final rendering with markdown, usage and the durability check);
* ``delta``: escaped answer text appended to the live answer;
* ``tools`` / ``status``: the tool list / the status block, re-rendered;
* ``end``: the turn is over; the page closes the connection.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from asgiref.sync import sync_to_async
from django.template.loader import render_to_string
from django.utils.html import escape

from hermes_ui.chat import hub, store
from hermes_ui.chat.models import Turn

KEEPALIVE_SECONDS = 15.0
_TOOL_EVENTS = {"tool.started", "tool.completed", "tool.failed", "tool.progress"}


def frame(event: str, data: str, event_id: int | None = None) -> str:
    lines = [f"id: {event_id}"] if event_id is not None else []
    lines.append(f"event: {event}")
    # One "data:" line per line; the browser joins them with "\n" again.
    lines += [f"data: {line}" for line in data.replace("\r", "").split("\n")]
    return "\n".join(lines) + "\n\n"


def delta_frame(seq: int, text: str) -> str:
    return frame("delta", escape(text), seq)


def render(part: str, view, csrf_token: str = "", *, final: bool = False) -> str:
    context = {"turn": view, "csrf_token": csrf_token, "final": final}
    return render_to_string(f"chat/turn.html#{part}", context)


def update_frames(update: hub.Update, csrf_token: str) -> str:
    if update.kind == "delta":
        return delta_frame(update.seq, update.text)
    if update.kind in {"tools", "status"}:
        return frame(update.kind, render(update.kind, update.view, csrf_token), update.seq)
    final = update.kind == "end"
    body = frame("snapshot", render("body", update.view, csrf_token, final=final), update.seq)
    return body + frame("end", "", update.seq) if final else body


def resume_frames(view, events: list, after: int | None, csrf_token: str) -> str:
    """What a (re)connecting browser is missing, given the last event id it saw."""
    if after is None or after > view.last_seq or after < 0:
        return frame("snapshot", render("body", view, csrf_token), view.last_seq)
    missed = [e for e in events if e[0] > after]
    text = "".join(d.get("delta") or "" for _, n, d, _ in missed if n == "assistant.delta")
    out = delta_frame(view.last_seq, text) if text else ""
    if any(n in _TOOL_EVENTS for _, n, _, _ in missed):
        out += frame("tools", render("tools", view, csrf_token), view.last_seq)
    return out + frame("status", render("status", view, csrf_token), view.last_seq)


async def stream(turn_id: int, after: int | None, csrf_token: str) -> AsyncIterator[str]:
    """Replay what the turn has received, then follow it live until it ends."""
    yield "retry: 1000\n\n"
    loop = asyncio.get_running_loop()
    joined = _join(turn_id, loop)
    if joined is None:
        view = await sync_to_async(_stored_view)(turn_id)
        # A turn recorded but not yet handed to the relay (its request is in flight).
        for _ in range(30 if view.running else 0):
            await asyncio.sleep(0.1)
            if (joined := _join(turn_id, loop)) is not None:
                break
        else:
            if view.running:
                view = await sync_to_async(_stored_view)(turn_id)
    if joined is None:
        yield frame("snapshot", render("body", view, csrf_token, final=True), view.last_seq)
        yield frame("end", "", view.last_seq)
        return
    live, (view, events, sub) = joined
    try:
        yield resume_frames(view, events, after, csrf_token)
        while True:
            try:
                update = await asyncio.wait_for(sub.queue.get(), KEEPALIVE_SECONDS)
            except TimeoutError:
                yield ": keepalive\n\n"
                continue
            yield update_frames(update, csrf_token)
            if update.kind == "end":
                return
    finally:
        live.unsubscribe(sub)


def _join(turn_id: int, loop):
    live = hub.get(turn_id)
    joined = live.subscribe(loop) if live is not None else None
    return (live, joined) if joined is not None else None


def _stored_view(turn_id: int):
    turn = store.settle_if_orphaned(Turn.objects.select_related("user").get(pk=turn_id))
    return store.view_of(turn)
