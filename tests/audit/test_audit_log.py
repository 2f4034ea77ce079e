"""The audit trail: admins only; filter by user, capability, endpoint, session, outcome, date."""

from datetime import timedelta

import pytest
from django.utils import timezone

from hermes_ui.audit import trail
from hermes_ui.audit.models import AuditEvent
from tests.changes.conftest import make_session, unique

pytestmark = pytest.mark.django_db
URL = "/audit/"


def rows(page: str) -> int:
    return (
        page.split("<tbody>", 1)[1].split("</tbody>", 1)[0].count("<tr>")
        if "<tbody>" in page
        else 0
    )


@pytest.fixture
def trail_events(users):
    # The grants that made the users are audited too (access.grant): not what is counted here.
    AuditEvent.objects.filter(capability__startswith="access.").delete()
    made = []
    for i in range(7):
        made.append(
            trail.record(
                users["reviewer"],
                capability="session_fork",
                endpoint="local",
                outcome="success",
                session_id=f"parent-{i}",
                evidence={"child_id": f"child-{i}", "title": "secret title"},
            )
        )
    made.append(
        trail.record(
            users["support"],
            capability="session_patch",
            endpoint="local",
            outcome="uncertain",
            session_id="s-1",
            error_code="timeout",
        )
    )
    made.append(
        trail.record(
            users["admin"],
            capability="deletion_approve",
            endpoint="other",
            outcome="rejected",
            session_id="s-2",
            http_status=404,
        )
    )
    old = trail.record(
        users["support"],
        capability="session_create",
        endpoint="local",
        outcome="success",
        session_id="s-old",
    )
    AuditEvent.objects.filter(pk=old.pk).update(at=timezone.now() - timedelta(days=10))
    return made


def test_only_admins_see_the_trail(login, trail_events):
    assert login("support").get(URL).status_code == 403
    assert login("reviewer").get(URL).status_code == 403
    page = login("admin").get(URL)
    assert page.status_code == 200
    assert rows(page.content.decode()) == 10
    assert "secret title" not in page.content.decode()


def test_nav_links_follow_the_role(login, trail_events, mock_endpoint):
    assert 'href="/audit/"' in login("admin").get(URL).content.decode()
    page = login("reviewer").get("/e/local/new/").content.decode()
    assert 'href="/audit/"' not in page and "New session" in page


@pytest.mark.parametrize(
    ("query", "count"),
    [
        ("user=support", 2),
        ("capability=session_fork", 7),
        ("endpoint=other", 1),
        ("outcome=uncertain", 1),
        ("session=parent-3", 1),
        ("session=child-5", 1),  # a fork is also found by its child
        ("capability=session_fork&user=support", 0),
    ],
)
def test_filters(login, trail_events, query, count):
    page = login("admin").get(f"{URL}?{query}").content.decode()
    assert rows(page) == count


def test_date_filters(login, trail_events):
    admin = login("admin")
    today = timezone.localdate().isoformat()
    assert rows(admin.get(f"{URL}?since={today}").content.decode()) == 9
    old = (timezone.localdate() - timedelta(days=9)).isoformat()
    assert rows(admin.get(f"{URL}?until={old}").content.decode()) == 1
    bad = admin.get(f"{URL}?since=yesterday")
    assert bad.status_code == 400 and "Those filters are not valid" in bad.content.decode()


def test_pages_of_fifty_keep_the_filter(login, users):
    for i in range(120):
        trail.record(
            users["support"],
            capability="session_patch",
            endpoint="local",
            outcome="success",
            session_id=f"s{i}",
        )
    admin = login("admin")
    first = admin.get(f"{URL}?user=support").content.decode()
    assert rows(first) == 50 and "Page 1 of 3" in first
    assert "user=support&amp;page=2" in first
    last = admin.get(f"{URL}?user=support&page=3", HTTP_HX_REQUEST="true").content.decode()
    assert rows(last) == 20 and last.lstrip().startswith('<section id="audit-results"')


def test_uncertain_rows_link_to_check_what_happened(login, trail_events):
    page = login("admin").get(f"{URL}?outcome=uncertain").content.decode()
    event = AuditEvent.objects.get(outcome="uncertain")
    assert f'href="/e/local/changes/{event.pk}/">check what happened' in page


@pytest.mark.peer
def test_every_change_against_the_real_peer_is_in_the_trail(login, changes_client):
    from tests.changes.test_fork import fork
    from tests.changes.test_rename import submit

    row = make_session(changes_client, chat="hi")
    submit(login("support"), row["id"], op="rename", title=unique("audited"))
    fork(login("reviewer"), row["id"])
    page = login("admin").get(f"{URL}?session={row['id']}").content.decode()
    assert rows(page) == 2
    assert "session_patch" in page and "session_fork" in page
    for event in AuditEvent.objects.exclude(capability__startswith="access."):
        assert event.idempotency_key and event.username in {"support", "reviewer"}
        assert event.http_status in {200, 201}
