"""The HTTP response that carries an export: a streamed attachment, locked down."""

import re

from django.core.handlers.asgi import ASGIRequest
from django.http import StreamingHttpResponse

from hermes_ui.web import streaming as stream

# A download is a file, not a page of this app: it may style itself, nothing else.
EXPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'"


def attachment(request, writer, chunks, *, session_id: str, lineage: bool) -> StreamingHttpResponse:
    response = StreamingHttpResponse(
        stream.as_async(chunks) if isinstance(request, ASGIRequest) else chunks,
        content_type=writer.content_type,
    )
    name = f"hermes-{_file_part(session_id)}{'-lineage' if lineage else ''}.{writer.extension}"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Content-Security-Policy"] = EXPORT_CSP
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "no-store"
    return response


def _file_part(session_id: str) -> str:
    part = re.sub(r"[^A-Za-z0-9_-]+", "_", session_id).strip("_")[:80]
    return part or "session"
