"""A session's deletion (four eyes) erases every share of it, snapshot and all.

Like ``tests/deletion/test_peer_erasure``: a canary in the shared transcript is
first found in a table and in the database files, so its absence afterwards
means erased, not "never looked in the right place".
"""

import uuid

import pytest
from django.db import connection

from hermes_ui.deletion.models import Status
from hermes_ui.shares.models import Share
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
from tests.shares.conftest import SID
from tests.shares.helpers import share

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_sessions_deletion_erases_its_shares_from_tables_and_files(
    login, colleague, shared_session, share_clock
):
    canary = f"CANARYSHARE{uuid.uuid4().hex[:12]}"
    shared_session.messages[SID][0]["content"] = f"the words {canary} stay here"
    support = login("support")
    _, inside = share(support)
    _, other = share(support, max_views=3)
    assert colleague.get(inside).status_code == 200
    assert Share.objects.filter(session_id=SID).count() == 2
    assert table_hits(canary) == ["shares_share"]
    assert file_hits(canary, db_files()) or connection.vendor != "sqlite"

    case = request_deletion(support, SID, "The data subject asked for erasure")
    assert decide(login("admin"), case.pk).status_code == 302
    assert execute(login("admin2"), case.pk).status_code == 302
    case = refresh(case)
    assert case.status == Status.EXECUTED and case.result["erased"]["shares"] == 2
    assert "<strong>2</strong> share links and their snapshots" in page(login("admin2"), case.pk)
    assert not Share.objects.exists()
    assert colleague.get(inside).status_code == 404 and colleague.get(other).status_code == 404
    assert table_hits(canary) == [] and file_hits(canary, db_files()) == []
