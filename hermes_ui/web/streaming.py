"""Streaming an export: hash the body while sending it, then state the hash.

The body arrives as text pieces from a writer; they are encoded, hashed and
sent in chunks of about ``CHUNK`` bytes, so memory holds one chunk, never
the export. ``on_done(sha256 or None, finished)`` runs once, when the last
byte was produced or when the client went away first.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Callable, Iterable, Iterator

from asgiref.sync import sync_to_async

from hermes_ui.db_steps import released

CHUNK = 64 * 1024


def hashed(
    pieces: Iterable[str],
    trailer: Callable[[str], str],
    on_done: Callable[[str | None, bool], None],
) -> Iterator[bytes]:
    digest, buffer, size, finished = hashlib.sha256(), [], 0, False
    try:
        for piece in pieces:
            data = piece.encode("utf-8", "replace")
            digest.update(data)
            buffer.append(data)
            size += len(data)
            if size >= CHUNK:
                yield b"".join(buffer)
                buffer, size = [], 0
        hexdigest = digest.hexdigest()
        yield b"".join(buffer) + trailer(hexdigest).encode("utf-8")
        finished = True
    finally:
        on_done(hexdigest if finished else None, finished)


async def as_async(chunks: Iterator[bytes]) -> AsyncIterator[bytes]:
    """The same chunks for an ASGI server, produced one at a time in the sync thread.

    Django would otherwise read a sync iterator to the end before sending
    anything under ASGI, which is exactly the whole-export-in-memory this avoids.
    """
    # Each step gives back the connection it used: an export streams for minutes
    # off the page lanes (see hermes_ui.db_steps).
    step = sync_to_async(released(next), thread_sensitive=True)
    try:
        while (chunk := await step(chunks, None)) is not None:
            yield chunk
    finally:
        await sync_to_async(released(chunks.close), thread_sensitive=True)()
