"""Archive, restore and pin: on the flags peer (0.19.0 with the newer session-flag rules
in front, devtools/peer/paging.py) they work; on the plain real 0.19.0 the first attempt
learns ``unsupported_session_field`` and the page then names the Hermes change instead."""

import httpx
import pytest
from django.urls import reverse

from hermes_ui.audit.models import AuditEvent
from hermes_ui.hermes.client import use_transport
from hermes_ui.observed import facts
from hermes_ui.observed.models import SESSION_FLAGS, Observation
from hermes_ui.web.links import session_url
from tests.changes.conftest import Faults, form_key
from tests.changes.test_fork import checks
from tests.jobs.helpers import follow
from tests.support.peers import index, make, read

pytestmark = [pytest.mark.django_db, pytest.mark.peer]


def hermes(peer, path, method="GET", **kw):
    """One call to the peer, bypassing the dashboard."""
    headers = {"Authorization": f"Bearer {peer.key}"}
    return httpx.request(method, peer.base_url + path, headers=headers, timeout=30, **kw)


def listed(peer, **params) -> list[str]:
    return [row["id"] for row in hermes(peer, "/api/sessions", params=params).json()["data"]]


def press(client, endpoint, session_id, op):
    """Press one of the session page's flag buttons, as a browser without JS does."""
    page = client.get(session_url(endpoint.id, session_id)).content.decode()
    form = page.split('id="session-flags"', 1)[1]
    answer = client.post(
        session_url(endpoint.id, session_id, "session_flag"), {"key": form_key(form), "flag": op}
    )
    assert answer.status_code == 302
    return client.get(answer["Location"]).content.decode()


def test_the_flags_peer_applies_the_newer_patch_and_list_rules(flags_peer):
    for n in range(3):
        made = hermes(flags_peer, "/api/sessions", "POST", json={"id": f"rule-{n}"}).json()
        assert made["session"]["pinned"] is False and made["session"]["archived"] is False
    bad = hermes(flags_peer, "/api/sessions/rule-0", "PATCH", json={"pinned": "yes"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_session_field"
    pinned = hermes(flags_peer, "/api/sessions/rule-0", "PATCH", json={"pinned": True}).json()
    assert pinned["session"]["pinned"] is True and pinned["session"]["archived"] is False
    hermes(flags_peer, "/api/sessions/rule-1", "PATCH", json={"archived": True})
    assert hermes(flags_peer, "/api/sessions/rule-1").json()["session"]["archived"] is True
    assert "rule-1" not in listed(flags_peer)
    # The pinned row comes back past the limit; has_more counts the other rows only.
    page = hermes(flags_peer, "/api/sessions", params={"limit": 1}).json()
    ids = [row["id"] for row in page["data"]]
    assert ids[0] == "rule-2" and "rule-0" in ids and len(ids) == 2
    assert page["has_more"] is True
    # 0.19.0 behind it refuses the same field.
    behind = hermes(flags_peer.upstream, "/api/sessions/rule-2", "PATCH", json={"pinned": True})
    assert behind.json()["error"]["code"] == "unsupported_session_field"


def test_archive_find_with_archived_yes_and_restore(flags_endpoint, flags_peer, login):
    make(flags_endpoint, "flag-archive-me", title="Archive me please")
    index(flags_endpoint)  # the index knew it before: archiving takes it out of the list
    client = login("support")
    page = press(client, flags_endpoint, "flag-archive-me", "archive")
    assert "The session is archived" in page and 'id="restore-button"' in page
    assert 'id="archived-note"' in page and "archived on Hermes" in page
    assert "Restore is not in the Hermes API" not in page  # this Hermes restores
    assert "flag-archive-me" not in listed(flags_peer)
    event = AuditEvent.objects.get(capability="session_patch", session_id="flag-archive-me")
    assert event.evidence["op"] == "archive" and event.evidence["applied"] is True

    index(flags_endpoint)
    found = client.get("/e/local/sessions/", {"q": "archived:yes"}).content.decode()
    assert "Archive me please" in found
    assert "Archive me please" not in client.get("/e/local/sessions/").content.decode()

    page = press(client, flags_endpoint, "flag-archive-me", "restore")
    assert "restored" in page and 'id="archive-button"' in page
    assert "flag-archive-me" in listed(flags_peer)
    index(flags_endpoint)
    found = client.get("/e/local/sessions/", {"q": "archived:yes"}).content.decode()
    assert "Archive me please" not in found
    assert Observation.objects.get(fact=SESSION_FLAGS).holds is True


def test_a_pinned_session_shows_as_pinned_on_the_list(flags_endpoint, login):
    make(flags_endpoint, "flag-pin-me", title="Pin me please")
    client = login("support")
    page = press(client, flags_endpoint, "flag-pin-me", "pin")
    assert "The session is pinned" in page and 'id="unpin-button"' in page
    index(flags_endpoint)
    html = client.get("/e/local/sessions/").content.decode()
    row = html.split("Pin me please", 1)[1].split("</tr>", 1)[0]
    assert "badge-kind-pinned" in row
    assert read(flags_endpoint, "flag-pin-me").pinned is True
    # The live list (Hermes' own) marks it too.
    live = client.get(reverse("session_list", kwargs={"endpoint": "local"})).content.decode()
    assert "badge-kind-pinned" in live.split("Pin me please", 1)[1].split("</tr>", 1)[0]


def test_plain_0190_is_asked_once_then_the_page_names_the_change(changes_endpoint, login):
    make(changes_endpoint, "flag-on-0190", title="Flag on 0.19.0")
    client = login("support")
    first = client.get(session_url("local", "flag-on-0190")).content.decode()
    assert 'id="archive-button"' in first  # nothing learnt yet: offered
    page = press(client, changes_endpoint, "flag-on-0190", "archive")
    assert "Archive and pin need a Hermes newer than 0.19" in page
    assert 'id="flags-need-newer"' in page
    assert 'id="archive-button"' not in page and 'id="pin-button"' not in page
    seen = Observation.objects.get(fact=SESSION_FLAGS)
    assert seen.holds is False and seen.evidence == ["flag-on-0190"]
    event = AuditEvent.objects.get(capability="session_patch", session_id="flag-on-0190")
    assert event.error_code == "unsupported_session_field"
    # Nothing changed in Hermes: listed, same title, no flags reported.
    assert "flag-on-0190" in [s["id"] for s in hermes_list(changes_endpoint)]
    row = read(changes_endpoint, "flag-on-0190")
    assert row.title == "Flag on 0.19.0" and row.archived is None
    # A stale form pressed again is refused here, before anything is sent.
    again = client.post(
        session_url("local", "flag-on-0190", "session_flag"),
        {"key": form_key(first), "flag": "pin"},
    )
    assert again.status_code == 302
    assert AuditEvent.objects.filter(capability="session_patch").count() == 1
    # Bulk archive on this endpoint now says the same, and starts nothing.
    bulk = client.post(reverse("bulk_archive", kwargs={"endpoint": "local"}), {"ids": ["x"]})
    assert bulk.status_code == 400 and "need a Hermes newer than 0.19" in bulk.content.decode()


def hermes_list(endpoint):
    headers = {"Authorization": f"Bearer {endpoint.api_key}"}
    url = endpoint.base_url + "/api/sessions"
    return httpx.get(url, headers=headers, params={"limit": 200}, timeout=30).json()["data"]


@pytest.mark.usefixtures("jobs_db")
def test_bulk_archive_archives_each_through_its_own_patch(flags_endpoint, flags_peer, login):
    ids = ["flag-bulk-1", "flag-bulk-2"]
    for sid in ids:
        make(flags_endpoint, sid)
    make(flags_endpoint, "flag-bulk-stays")
    index(flags_endpoint)
    support = login("support")
    url = reverse("bulk_archive", kwargs={"endpoint": "local"})
    review = support.post(url, {"ids": ids})
    assert review.status_code == 200 and "flag-bulk-stays" not in review.content.decode()
    form = {"ids": ids, "stage": "confirm", "key": form_key(review.content.decode())}
    done = follow(support, support.post(url, form))
    assert done.content.decode().count('data-verdict="archived"') == 2
    assert all(read(flags_endpoint, sid).archived is True for sid in ids)
    assert read(flags_endpoint, "flag-bulk-stays").archived is False
    now = listed(flags_peer)
    assert not set(ids) & set(now) and "flag-bulk-stays" in now
    events = AuditEvent.objects.filter(capability="session_patch", session_id__in=ids)
    assert events.count() == 2 and len({ev.idempotency_key for ev in events}) == 2
    again = follow(support, support.post(url, form))
    assert again.content.decode().count("already submitted") == 2


def test_an_archive_whose_answer_was_lost_is_uncertain_then_checked(flags_endpoint, login):
    """The PATCH reaches the flags peer, the answer is lost: the change is uncertain, and
    "Check again" reads the session (never sends the PATCH again) and finds it archived."""
    make(flags_endpoint, "flag-lost-answer")
    client = login("support")
    page = client.get(session_url("local", "flag-lost-answer")).content.decode()
    key = form_key(page.split('id="session-flags"', 1)[1])
    faults = Faults({("PATCH", "/flag-lost-answer"): "lost"})
    with use_transport(faults.transport):
        answer = client.post(
            session_url("local", "flag-lost-answer", "session_flag"),
            {"key": key, "flag": "archive"},
        )
        assert answer.status_code == 504 and "Outcome uncertain" in answer.content.decode()
        event = AuditEvent.objects.get(session_id="flag-lost-answer")
        url = reverse("change_check", kwargs={"endpoint": "local", "event_id": event.pk})
        checked = client.post(url).content.decode()
    assert checks(checked) == {"Archive": "yes"}
    assert len(faults.sent("PATCH")) == 1  # never repeated
    assert read(flags_endpoint, "flag-lost-answer").archived is True


def test_after_an_upgrade_the_buttons_come_back(flags_endpoint, login):
    """A refusal remembered from before (as 0.19.0 gave it) yields to a session that now
    reports ``archived``: the buttons are offered, and the next answer is remembered."""
    facts.record(flags_endpoint, SESSION_FLAGS, False, facts.Source.CHANGE)
    make(flags_endpoint, "flag-upgraded")
    client = login("support")
    page = press(client, flags_endpoint, "flag-upgraded", "archive")
    assert "The session is archived" in page and 'id="flags-need-newer"' not in page
    assert read(flags_endpoint, "flag-upgraded").archived is True
    assert Observation.objects.get(fact=SESSION_FLAGS).holds is True
