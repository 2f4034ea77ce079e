"""Writers are lazy and the trailer states the SHA-256 of every byte before it."""

import hashlib
import json

import pytest

from hermes_ui.export.formats import WRITERS, ExportDoc, ExportSession
from hermes_ui.platform.redaction import Redactor
from hermes_ui.web import streaming as stream

COUNT = 3000


def doc_of(messages):
    session = ExportSession(
        row={"id": "s1", "title": "Long"}, lineage={}, messages_session_id="s1", messages=messages
    )
    return ExportDoc(
        endpoint="local",
        session_id="s1",
        exported_by="t",
        lineage=False,
        redactor=Redactor(False),
        sessions=[session],
    )


@pytest.mark.parametrize("fmt", sorted(WRITERS))
def test_a_3000_message_export_is_produced_incrementally(fmt):
    consumed = []

    def messages():
        for i in range(COUNT):
            consumed.append(i)
            yield {"id": i, "role": "user", "content": "word " * 40, "timestamp": 1.0}

    done = []
    writer = WRITERS[fmt]
    chunks = stream.hashed(
        writer.body(doc_of(messages())), writer.trailer, lambda sha, ok: done.append((sha, ok))
    )
    first = next(chunks)
    # The first chunk left before most of the transcript was even read.
    assert len(first) <= 2 * stream.CHUNK
    assert len(consumed) < COUNT // 2
    rest = b"".join(chunks)
    whole = first + rest
    assert len(consumed) == COUNT
    ((sha, ok),) = done
    assert ok
    if fmt == "json":
        cut = whole.rindex(b'"sha256":')
        assert json.loads(whole)["sha256"] == sha
    else:
        cut = whole.rindex(b"<p>SHA-256" if fmt == "html" else b"SHA-256 of every byte")
        assert whole.rstrip().endswith(
            (sha + "</p></footer></body></html>").encode() if fmt == "html" else sha.encode()
        )
    assert hashlib.sha256(whole[:cut]).hexdigest() == sha


def test_a_client_that_goes_away_is_reported_unfinished():
    done = []
    writer = WRITERS["md"]
    many = ({"id": i, "role": "user", "content": "x" * 500} for i in range(COUNT))
    chunks = stream.hashed(
        writer.body(doc_of(many)), writer.trailer, lambda sha, ok: done.append((sha, ok))
    )
    next(chunks)
    chunks.close()
    assert done == [(None, False)]
