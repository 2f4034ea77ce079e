"""The dataset download itself: masked as the rule says, audited, streamed and digested.

One implementation for the dataset page and the API (``hermes_ui.api``), so the
same queue, query and role give the same bytes through either.
"""

import re

from hermes_ui.hermes import client_for
from hermes_ui.platform.redaction import Redactor
from hermes_ui.review import dataset, dataset_audit
from hermes_ui.review.dataset_formats import FORMATS
from hermes_ui.web import download_limits, masking, streaming


def stream(request, source: dataset.Source, cleaned: dict, name: str, facts: dict):
    """The streamed response for ``request.user``; raises ``download_limits.Busy`` when
    they (or the process) already stream as many downloads as allowed."""
    slot = download_limits.acquire(request.user)  # held until the download ends
    with slot:
        fmt = cleaned["format"]
        # Support staff never take an unmasked copy away, whatever the URL says.
        redactor = Redactor(masking.masked(request.user, cleaned["redact"]))
        facts = {
            **facts,
            "format": fmt,
            "kind": source.per,
            "redacted": redactor.enabled,
            "sessions": len(source.session_ids),
        }
        finish = dataset_audit.start(request.user, source.ep, facts, source.counts, redactor)
        writer = FORMATS[fmt]
        body = writer.body(dataset.records(client_for(source.ep), source, redactor))  # type: ignore[operator]
        chunks = slot.stream(streaming.hashed(body, writer.trailer(source.counts), finish))  # type: ignore[operator]
        filename = f"review-dataset-{_safe(source.ep.id)}-{name}.{writer.extension}"
        return streaming.attachment(
            request, chunks, content_type=writer.content_type, filename=filename
        )


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text)[:40] or "endpoint"
