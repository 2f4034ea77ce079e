"""Review dataset export benchmark: 1,000 vs 10,000 labelled messages, streamed.

``python manage.py bench --only review_export`` seeds a scratch peer with the
bench profile (1,000 sessions x 10 messages; real hermes-agent 0.19.0, so the
transcripts come over HTTP from the real server), then, in a child process
with a scratch database, labels every message of those sessions in one queue
(one completed review per session, one label per message) and exports the
queue's JSONL dataset, per message and masked, for the first 100 sessions
(1,000 messages) and for all 1,000 (10,000 messages). The body is consumed
chunk by chunk, as a client would read it, and thrown away. It prints the
time of each export and, in a second pass under ``tracemalloc``, its peak
Python memory: a streamed export holds one transcript and one chunk at a
time, so the peak stays flat while the size grows tenfold. It asserts nothing.
"""

from __future__ import annotations

import time
import tracemalloc

SESSIONS = 1000  # x 10 messages each


def run(stdout) -> None:
    from devtools.bench.child import measure_in_child, seeded_peer

    with seeded_peer(stdout, "review-export", count=SESSIONS) as (scratch, peer):
        measure_in_child(stdout, "devtools.bench.review_export", scratch, peer)


def _label_everything(ep, say):
    from django.contrib.auth import get_user_model

    from devtools.peer import demo_ids as ids
    from hermes_ui.hermes.client import HermesClient
    from hermes_ui.review.models import Item, Label, Queue, Review, Rubric, RubricVersion

    user = get_user_model().objects.create_user("bench-reviewer")
    fields = [
        {
            "key": "accuracy",
            "label": "Accuracy",
            "type": "choice",
            "choices": ["right", "wrong"],
            "applies": "message",
        }
    ]
    version = RubricVersion.objects.create(
        rubric=Rubric.objects.create(name="bench"), number=1, fields=fields
    )
    queue = Queue.objects.create(**ep.scope(), name="bench", rubric=version.rubric)
    session_ids = [f"{ids.BENCH_PREFIX}{i:05d}" for i in range(SESSIONS)]
    client = HermesClient(ep)
    started = time.perf_counter()
    labels = 0
    try:
        for sid in session_ids:
            rows = client.get_messages(sid)["data"]
            item = Item.objects.create(**ep.scope(), queue=queue, session_id=sid, state="completed")
            review = Review.objects.create(
                item=item, reviewer=user, reviewer_name=user.username, version=version, done=True
            )
            Label.objects.bulk_create(
                Label(
                    **ep.scope(),
                    session_id=sid,
                    message_id=row["id"],
                    review=review,
                    field="accuracy",
                    value="right" if n % 3 else "wrong",
                )
                for n, row in enumerate(rows)
            )
            labels += len(rows)
    finally:
        client.close()
    say(f"labelled {labels:,} messages in {time.perf_counter() - started:.1f} s")
    return queue, session_ids


def _export(ep, queue, session_ids) -> tuple[int, int]:
    """Stream one export to the end; (records, bytes)."""
    from hermes_ui.hermes import client_for
    from hermes_ui.platform.redaction import Redactor
    from hermes_ui.review import dataset
    from hermes_ui.review.dataset_formats import FORMATS
    from hermes_ui.web import streaming

    source = dataset.Source(ep, session_ids, dataset.MESSAGE, queue)
    writer = FORMATS["jsonl"]
    body = writer.body(dataset.records(client_for(ep), source, Redactor(True)))
    size = 0
    for chunk in streaming.hashed(body, writer.trailer(source.counts), lambda *_: None):
        size += len(chunk)
    return source.counts["records"], size


def _measure() -> None:
    from devtools.bench.child import child_setup

    ep, say = child_setup()
    queue, session_ids = _label_everything(ep, say)
    _export(ep, queue, session_ids[:10])  # warm: connections, templates of the ORM
    figures = {}
    for sessions in (SESSIONS // 10, SESSIONS):
        started = time.perf_counter()
        records, size = _export(ep, queue, session_ids[:sessions])
        seconds = time.perf_counter() - started
        tracemalloc.start()
        _export(ep, queue, session_ids[:sessions])
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        figures[sessions] = (seconds, peak)
        say(
            f"export of {records:,} labelled messages ({size / 2**20:.1f} MiB of JSONL): "
            f"{seconds:.2f} s, {records / seconds:,.0f} records/s, "
            f"peak Python memory {peak / 2**20:.2f} MiB"
        )
    (small_s, small_peak), (big_s, big_peak) = figures[SESSIONS // 10], figures[SESSIONS]
    say(
        f"10,000 vs 1,000 messages: time x{big_s / small_s:.1f}, "
        f"peak memory x{big_peak / small_peak:.2f} (flat: streamed, one transcript at a time)"
    )


if __name__ == "__main__":
    _measure()
