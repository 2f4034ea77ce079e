"""The records of a review dataset: what the model saw, what it said, and what reviewers gave."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

from hermes_ui.access import rows as seen
from hermes_ui.hermes import HermesError
from hermes_ui.hermes.transcript import plain_text
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.platform.redaction import Redactor
from hermes_ui.review import consensus
from hermes_ui.review.models import Correction, Queue
from hermes_ui.web.failures import title_for

MESSAGE, SESSION = "message", "session"
CHUNK = 50  # sessions whose labels and corrections are read at once (bounds memory)


@dataclass
class Source:
    ep: Endpoint
    session_ids: list[str]
    per: str = MESSAGE
    queue: Queue | None = None  # only this queue's reviews, else every queue's
    counts: dict = field(default_factory=lambda: {"records": 0, "failed": 0})


def queue_sessions(queue: Queue, user=None) -> list[str]:
    """The sessions of a queue's items (whole or by a message), in the order they came;
    with ``user``, only those they may see (the one rule)."""
    items = queue.items.all()
    if user is not None:
        items = seen.visible(items, user)
    ids = items.order_by("id").values_list("session_id", flat=True)
    return list(dict.fromkeys(ids))


def records(client, source: Source, redactor: Redactor) -> Iterator[dict]:
    for start in range(0, len(source.session_ids), CHUNK):
        chunk = source.session_ids[start : start + CHUNK]
        reviews, corrections = _reviews(source, chunk), _corrections(source.ep, chunk)
        for session_id in chunk:
            try:
                payload = client.get_messages(session_id)
            except HermesError as failure:
                source.counts["failed"] += 1
                yield {
                    "endpoint": source.ep.id,
                    "session_id": session_id,
                    "error": title_for(failure),
                }
                continue
            rows = payload["data"]
            for record in _session(source, session_id, rows, reviews, corrections, redactor):
                source.counts["records"] += 1
                yield _masked(redactor, record)


def _session(source, session_id, rows, reviews, corrections, redactor) -> Iterator[dict]:
    context: list[dict] = []  # each message masked once, as it is read
    for index, row in enumerate(rows):
        message_id = row.get("id")
        said = {"role": str(row.get("role") or ""), "text": redactor.text(plain_text(row))}
        last = index == len(rows) - 1
        key = (session_id, None) if source.per == SESSION else (session_id, message_id)
        wanted = last if source.per == SESSION else key in reviews or key in corrections
        if wanted:
            yield _record(source.ep, key, message_id, context, said, reviews, corrections)
        context.append(said)
    if not rows and source.per == SESSION:
        empty = {"role": "", "text": ""}
        yield _record(source.ep, (session_id, None), None, [], empty, reviews, corrections)


def _record(ep, key, message_id, context, said, reviews, corrections) -> dict:
    given = list(reviews.get(key, {}).values())
    by_field: dict[str, list] = defaultdict(list)
    for review in given:
        for name, value in review["labels"].items():
            by_field[name].append((value, review["authoritative"]))
    resolved = {name: consensus.resolve(pairs) for name, pairs in by_field.items()}
    correction = corrections.get((key[0], message_id))
    return {
        "endpoint": ep.id,
        "session_id": key[0],
        "message_id": message_id,
        "role": said["role"],
        "context": list(context),
        "output": said["text"],
        "correction": correction["text"] if correction else None,
        "correction_by": correction["author"] if correction else None,
        "labels": {name: value for name, value in resolved.items() if value is not None},
        "reviews": given,
        "reviewer_ids": sorted({r["reviewer_id"] for r in given if r["reviewer_id"]}),
    }


def _reviews(source: Source, ids: list[str]) -> dict:
    """(session id, message id or None) -> review id -> that review's labels and who gave them."""
    rows = consensus.labels(source.ep).filter(session_id__in=ids)
    if source.queue is not None:
        rows = rows.filter(review__item__queue=source.queue)
    found: dict = defaultdict(dict)
    for row in rows.order_by("review_id", "field").values(
        "session_id",
        "message_id",
        "field",
        "value",
        "review_id",
        "review__reviewer_id",
        "review__reviewer__username",
        "review__reviewer_name",
        "review__authoritative",
        "review__version__number",
        "review__version__rubric__name",
    ):
        review = found[(row["session_id"], row["message_id"])].setdefault(
            row["review_id"],
            {
                "reviewer_id": row["review__reviewer_id"],
                "reviewer": row["review__reviewer__username"] or row["review__reviewer_name"],
                "rubric": row["review__version__rubric__name"],
                "rubric_version": row["review__version__number"],
                "authoritative": row["review__authoritative"],
                "labels": {},
            },
        )
        review["labels"][row["field"]] = row["value"]
    return found


def _corrections(ep: Endpoint, ids: list[str]) -> dict:
    """(session id, message id) -> the newest correction's text and author's username."""
    rows = Correction.objects.filter(**ep.scope(), session_id__in=ids, message_id__isnull=False)
    found = {}
    for row in rows.order_by("updated_at", "id").values(
        "session_id", "message_id", "text", "author__username", "author_name"
    ):
        author = row["author__username"] or row["author_name"]
        found[(row["session_id"], row["message_id"])] = {"text": row["text"], "author": author}
    return found


def _masked(redactor: Redactor, record: dict) -> dict:
    """The reviewers' text of a record masked (its messages were, as they were read)."""
    if not redactor.enabled:
        return record
    if record["correction"]:
        record["correction"] = redactor.text(record["correction"])
    record["labels"] = redactor.value(record["labels"])
    record["reviews"] = [{**r, "labels": redactor.value(r["labels"])} for r in record["reviews"]]
    return record
