"""Streaming a download (a session export, a review dataset): hash the body while
sending it, then state the hash.

The body arrives as text pieces from a writer; they are encoded, hashed and
sent in chunks of about ``CHUNK`` bytes, so memory holds one chunk, never
the export. ``on_done(sha256 or None, finished)`` runs once, when the last
byte was produced or when the client went away first. ``attachment`` wraps
the chunks in the locked-down response every download gets.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Callable, Iterable, Iterator

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import StreamingHttpResponse

from hermes_ui.platform.db_steps import released

CHUNK = 64 * 1024
# A download is a file, not a page of this app: it may style itself, nothing else.
DOWNLOAD_CSP = "default-src 'none'; style-src 'unsafe-inline'"


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
    # off the page lanes (see hermes_ui.platform.db_steps).
    step = sync_to_async(released(next), thread_sensitive=True)
    try:
        while (chunk := await step(chunks, None)) is not None:
            yield chunk
    finally:
        await sync_to_async(released(chunks.close), thread_sensitive=True)()  # type: ignore[attr-defined]


def attachment(request, chunks, *, content_type: str, filename: str) -> StreamingHttpResponse:
    """The response streaming ``chunks`` as the file ``filename`` (a safe name)."""
    response = StreamingHttpResponse(
        as_async(chunks) if isinstance(request, ASGIRequest) else chunks,
        content_type=content_type,
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Content-Security-Policy"] = DOWNLOAD_CSP
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "no-store"
    return response
