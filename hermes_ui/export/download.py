"""The HTTP response that carries an export: a streamed attachment, locked down."""

import re

from django.http import StreamingHttpResponse

from hermes_ui.web import streaming


def attachment(request, writer, chunks, *, session_id: str, lineage: bool) -> StreamingHttpResponse:
    name = f"hermes-{_file_part(session_id)}{'-lineage' if lineage else ''}.{writer.extension}"
    return streaming.attachment(request, chunks, content_type=writer.content_type, filename=name)


def _file_part(session_id: str) -> str:
    part = re.sub(r"[^A-Za-z0-9_-]+", "_", session_id).strip("_")[:80]
    return part or "session"
