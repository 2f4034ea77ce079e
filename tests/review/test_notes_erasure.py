"""An executed deletion erases a session's notes, their mentions and its corrections, only its."""

import pytest

from hermes_ui.deletion import erasure
from hermes_ui.review import corrections, notes
from hermes_ui.review.models import Correction, Mention, Note

pytestmark = pytest.mark.django_db


def _leave_traces(ep, users, session_id: str) -> None:
    support, reviewer = users["support"], users["reviewer"]
    notes.add(ep, support, session_id, None, f"erase-canary {session_id} @reviewer")
    notes.add(ep, support, session_id, 2, "erase-canary on a message @reviewer @admin")
    corrections.save(ep, reviewer, session_id, 2, f"erase-canary correction {session_id}")


def test_erasing_a_session_removes_its_notes_mentions_and_corrections(mock_endpoint, users):
    ep = mock_endpoint
    _leave_traces(ep, users, "gone")
    _leave_traces(ep, users, "kept")
    held = erasure.local_copies(ep, ["gone"])
    assert (held["notes"], held["corrections"]) == (2, 1)

    counts = erasure.erase(ep, ["gone"])

    assert (counts["notes"], counts["corrections"]) == (2, 1)
    assert not Note.objects.filter(session_id="gone").exists()
    assert not Correction.objects.filter(session_id="gone").exists()
    assert not Mention.objects.filter(note__session_id="gone").exists()
    assert Note.objects.filter(session_id="kept").count() == 2
    assert Mention.objects.filter(note__session_id="kept").count() == 3
    assert Correction.objects.filter(session_id="kept").count() == 1
    assert erasure.erase(ep, ["gone"])["notes"] == 0  # nothing left to erase


def test_rows_of_another_endpoint_identity_stay(mock_endpoint, users, settings):
    from hermes_ui.platform.endpoints import Endpoint

    other = Endpoint("local", "http://another-hermes.test", "k" * 24)
    _leave_traces(other, users, "gone")
    erasure.erase(mock_endpoint, ["gone"])
    assert Note.objects.filter(session_id="gone").count() == 2
    assert Correction.objects.filter(session_id="gone").count() == 1
