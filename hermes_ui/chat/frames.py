"""A turn as server-sent events of HTML fragments, for htmx's SSE extension."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from asgiref.sync import sync_to_async
from django.template.loader import render_to_string
from django.utils.html import escape

from hermes_ui.chat import hub, store, turn_streams
from hermes_ui.chat.models import Turn
from hermes_ui.platform import redis_link
from hermes_ui.platform.db_steps import released

KEEPALIVE_SECONDS = 15.0
# Without Redis the turn is followed in the database, this often.
SETTLED_POLL_SECONDS = 1.0
LIVE_UNAVAILABLE = (
    "The live view is unavailable: the dashboard cannot reach Redis, which relays this turn "
    "between its workers. The turn goes on; this page shows the result when it ends."
)
# Events redrawn in the tools region (commentary of a newer Hermes is shown there too).
_TOOL_EVENTS = {
    "tool.started",
    "tool.completed",
    "tool.failed",
    "tool.progress",
    "assistant.commentary",
}


def frame(event: str, data: str, event_id: int | None = None) -> str:
    lines = [f"id: {event_id}"] if event_id is not None else []
    lines.append(f"event: {event}")
    # One "data:" line per line; the browser joins them with "\n" again.
    lines += [f"data: {line}" for line in data.replace("\r", "").split("\n")]
    return "\n".join(lines) + "\n\n"


def delta_frame(seq: int, text: str) -> str:
    return frame("delta", escape(text), seq)


def render(
    part: str, view, csrf_token: str = "", *, final: bool = False, viewer=None, note: str = ""
) -> str:
    # ``viewer`` is ``user`` to the template, which shows some details to the owner only.
    context = {"turn": view, "csrf_token": csrf_token, "final": final, "user": viewer}
    context["live_note"] = note
    return render_to_string(f"chat/turn.html#{part}", context)


def update_frames(update: hub.Update, csrf_token: str, viewer=None) -> str:
    if update.kind == "delta":
        return delta_frame(update.seq, update.text)
    if update.kind in {"tools", "status"}:
        part = render(update.kind, update.view, csrf_token, viewer=viewer)
        return frame(update.kind, part, update.seq)
    final = update.kind == "end"
    body = render("body", update.view, csrf_token, final=final, viewer=viewer)
    body = frame("snapshot", body, update.seq)
    return body + frame("end", "", update.seq) if final else body


def resume_frames(view, events: list, after: int | None, csrf_token: str, viewer=None) -> str:
    """What a (re)connecting browser is missing, given the last event id it saw."""
    if after is None or after > view.last_seq or after < 0:
        return frame("snapshot", render("body", view, csrf_token, viewer=viewer), view.last_seq)
    missed = [e for e in events if e[0] > after]
    text = "".join(d.get("delta") or "" for _, n, d, _ in missed if n == "assistant.delta")
    out = delta_frame(view.last_seq, text) if text else ""
    if any(n in _TOOL_EVENTS for _, n, _, _ in missed):
        out += frame("tools", render("tools", view, csrf_token, viewer=viewer), view.last_seq)
    status = render("status", view, csrf_token, viewer=viewer)
    return out + frame("status", status, view.last_seq)


async def stream(
    turn_id: int, after: int | None, csrf_token: str, viewer=None
) -> AsyncIterator[str]:
    """Replay what the turn has received, then follow it live until it ends."""
    yield "retry: 1000\n\n"
    loop = asyncio.get_running_loop()
    joined = _join(turn_id, loop)
    if joined is None and turn_streams.enabled():
        async for chunk in _follow_shared(turn_id, after, csrf_token, viewer):
            yield chunk
        return
    if joined is None:
        view = await sync_to_async(_read_view)(turn_id)
        # A turn recorded but not yet handed to the relay (its request is in flight).
        for _ in range(30 if view.running else 0):
            await asyncio.sleep(0.1)
            if (joined := _join(turn_id, loop)) is not None:
                break
        else:
            if view.running:
                view = await sync_to_async(_read_view)(turn_id)
    if joined is None:
        body = render("body", view, csrf_token, final=True, viewer=viewer)
        yield frame("snapshot", body, view.last_seq)
        yield frame("end", "", view.last_seq)
        return
    live, (view, events, sub) = joined
    try:
        yield resume_frames(view, events, after, csrf_token, viewer)
        while True:
            try:
                update = await asyncio.wait_for(sub.queue.get(), KEEPALIVE_SECONDS)
            except TimeoutError:
                yield ": keepalive\n\n"
                continue
            yield update_frames(update, csrf_token, viewer)
            if update.kind == "end":
                return
    finally:
        live.unsubscribe(sub)


async def _follow_shared(turn_id: int, after, csrf_token: str, viewer) -> AsyncIterator[str]:
    """The turn through its Redis stream: whichever worker owns it, this one serves it.

    If Redis stops answering, the stream says the live view is unavailable and
    waits for the turn to end in the database, then sends the result.
    """
    import redis

    view = await sync_to_async(_read_view)(turn_id, with_events=False)
    if view.running:
        follower = turn_streams.follow(turn_id, view, _apply_shared)
        try:
            idle = 0.0
            async for item in follower:
                if isinstance(item, tuple):
                    yield resume_frames(*item, after, csrf_token, viewer)  # type: ignore[call-arg]
                elif item is not None:
                    idle = 0.0
                    yield update_frames(item, csrf_token, viewer)
                    if item.kind == "end":
                        return
                elif not (await sync_to_async(_read_view)(turn_id, with_events=False)).running:
                    break  # the owner is gone and the turn is settled as uncertain
                else:
                    idle += turn_streams.BLOCK_MS / 1000
                    if idle >= KEEPALIVE_SECONDS:
                        idle = 0.0
                        yield ": keepalive\n\n"
        except redis.RedisError as exc:
            redis_link.failed(exc, "chat stream")
            note = render("status", view, csrf_token, note=LIVE_UNAVAILABLE)
            yield frame("status", note, view.last_seq)
            async for keepalive in _until_settled(turn_id):
                yield keepalive
        finally:
            await follower.aclose()  # type: ignore[attr-defined]
    view = await sync_to_async(_read_view)(turn_id)
    yield frame(
        "snapshot", render("body", view, csrf_token, final=True, viewer=viewer), view.last_seq
    )
    yield frame("end", "", view.last_seq)


async def _until_settled(turn_id: int) -> AsyncIterator[str]:
    """Wait, reading the database, until the turn is no longer running; keepalives meanwhile."""
    idle = 0.0
    while (await sync_to_async(_read_view)(turn_id, with_events=False)).running:
        await asyncio.sleep(SETTLED_POLL_SECONDS)
        idle += SETTLED_POLL_SECONDS
        if idle >= KEEPALIVE_SECONDS:
            idle = 0.0
            yield ": keepalive\n\n"


def _apply_shared(view, kind: str, payload, events: list) -> hub.Update | None:
    if kind == "e":
        seq, name, data, received_at = payload
        events.append((seq, name, data, received_at))
        return hub.fold_event(view, seq, name, data)
    return hub.publish_change(view, payload[0], payload[1])


def _join(turn_id: int, loop):
    live = hub.get(turn_id)
    joined = live.subscribe(loop) if live is not None else None
    return (live, joined) if joined is not None else None


def _stored_view(turn_id: int, *, with_events: bool = True):
    turn = store.settle_if_orphaned(Turn.objects.select_related("user").get(pk=turn_id))
    return store.view_of(turn, with_events=with_events)


# Off the page lanes: each read gives its connection back (see hermes_ui.platform.db_steps).
_read_view = released(_stored_view)
