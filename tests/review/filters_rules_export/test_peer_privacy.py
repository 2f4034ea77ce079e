"""An executed deletion erases review labels, notes and corrections: no canary is left in
any table or in the raw database files, and the result page counts what was erased."""

import uuid

import pytest
from django.db import connection

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.deletion.models import Status
from hermes_ui.hermes.client import HermesClient
from hermes_ui.index import sync
from hermes_ui.review.models import Correction, Item, Label, Mention, Note, Review
from tests.deletion.helpers import (
    db_files,
    decide,
    execute,
    file_hits,
    page,
    refresh,
    request_deletion,
    table_hits,
)
from tests.review.filters_rules_export.made import item, review

pytestmark = [pytest.mark.peer, pytest.mark.django_db(transaction=True)]


def _canary(where: str) -> str:
    return f"CANARY{where.upper()}{uuid.uuid4().hex[:12]}"


def test_a_deletion_erases_labels_notes_and_corrections(
    dataset_endpoint, users, login, version, queue_maker, clock
):
    with connection.cursor() as cursor:
        assert cursor.execute("PRAGMA secure_delete").fetchone() == (1,)
    hermes = HermesClient(dataset_endpoint)
    sid, kept = (f"privacy-{uuid.uuid4().hex[:8]}" for _ in range(2))
    try:
        for session_id in (sid, kept):
            hermes.create_session(
                idempotency_key=mint_key(), session_id=session_id, title=session_id
            )
            hermes.chat(session_id, message="hello")
        answer = hermes.get_messages(sid)["data"][-1]["id"]
    finally:
        hermes.close()
    sync.sync(dataset_endpoint, full=False)
    label, message_label, note, correction = (
        _canary(w) for w in ("label", "msglabel", "note", "correction")
    )
    queue = queue_maker(dataset_endpoint, "privacy")
    reviewer = users["reviewer"]
    review(
        item(queue, sid, state=Item.COMPLETED),
        reviewer,
        version,
        {"policy": label},
        {answer: {"note": message_label}},
    )
    review(item(queue, kept), reviewer, version, {"policy": "none"})  # another session's: stays
    scope = dataset_endpoint.scope()
    made = Note.objects.create(
        **scope, session_id=sid, author=reviewer, author_name="reviewer", body=f"@admin {note}"
    )
    Mention.objects.create(note=made, user=users["admin"])
    Correction.objects.create(
        **scope,
        session_id=sid,
        message_id=answer,
        author=reviewer,
        author_name="reviewer",
        text=correction,
    )
    canaries = (label, message_label, note, correction)
    for canary in canaries:  # each is found before the deletion
        assert table_hits(canary), canary
        assert file_hits(canary, db_files()), canary

    case = request_deletion(login("support"), sid, "The data subject asked for erasure")
    assert decide(login("admin"), case.pk).status_code == 302
    admin2 = login("admin2")
    assert execute(admin2, case.pk).status_code == 302
    case = refresh(case)
    assert case.status == Status.EXECUTED
    erased = case.result["erased"]
    assert (erased["review_items"], erased["labels"], erased["notes"], erased["corrections"]) == (
        1,
        2,
        1,
        1,
    )
    shown = page(admin2, case.pk)
    for text in (
        "<strong>2</strong> review labels",
        "<strong>1</strong> review notes",
        "<strong>1</strong> corrections",
        "<strong>1</strong> review queue items",
    ):
        assert text in shown, text
    for canary in canaries:
        assert table_hits(canary) == [], canary
        assert file_hits(canary, db_files()) == [], canary
    assert not Review.objects.filter(item__session_id=sid).exists()
    assert not Mention.objects.exists()
    # The other session's item and label are untouched.
    assert Label.objects.filter(session_id=kept).count() == 1
    assert queue.items.filter(session_id=kept).exists()
