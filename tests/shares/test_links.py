"""Share links through the views (fake Hermes): who may open which link, and until when."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from hermes_ui.audit.models import AuditEvent
from hermes_ui.notifications import compose, kinds
from hermes_ui.notifications.models import Notice
from hermes_ui.platform import events
from hermes_ui.shares import links
from hermes_ui.shares.models import Share
from hermes_ui.web.links import session_url
from tests.shares.conftest import API_KEY, EMAIL, HOSTILE_TEXT, SID
from tests.shares.helpers import form_url, newest, preview_digest, share

pytestmark = pytest.mark.django_db

UNKNOWN = "/s/no-such-token-0123456789abcdef0123456789abcdef0/"


@pytest.fixture
def share_events(monkeypatch):
    got: list[events.Event] = []
    monkeypatch.setitem(events.receivers(), "test-shares", got.append)
    return got


def test_the_form_previews_the_masked_snapshot_and_the_link_shows_it_to_a_colleague(
    login, colleague, stranger, shared_session, share_events
):
    support = login("support")
    preview = support.get(form_url()).content.decode()
    assert "[redacted:email]" in preview and "[redacted:api-key]" in preview
    assert EMAIL not in preview and API_KEY not in preview
    assert 'id="share-preview"' in preview and 'name="csrfmiddlewaretoken"' in preview

    made, path = share(support)
    assert made.status_code == 200 and made["Cache-Control"] == "no-store"
    token = path.split("/")[2]
    row = newest()
    assert row.kind == "inside" and row.created_by_name == "support"
    assert token not in str(Share.objects.values().get()) and row.digest == links.digest(token)
    assert row.expires_at - row.created_at == timedelta(days=7)
    stored = str(row.snapshot) + row.title
    assert EMAIL not in stored and API_KEY not in stored and row.masked >= 3

    opened = colleague.get(path)
    body = opened.content.decode()
    assert opened.status_code == 200
    assert opened["X-Robots-Tag"].startswith("noindex")
    assert opened["Referrer-Policy"] == "no-referrer" and opened["Cache-Control"] == "no-store"
    assert "script-src 'self'" in opened["Content-Security-Policy"]
    assert '<meta name="robots" content="noindex' in body
    assert "[redacted:email]" in body and EMAIL not in body and API_KEY not in body
    assert 'Shared by</dt><dd id="share-by">support' in body and "snapshot" in body
    # Nothing on the page leads back into the dashboard, and hostile text stays text.
    assert 'href="/' not in body.replace('href="/static/', "") and "<form" not in body
    assert HOSTILE_TEXT not in body and "&lt;img src=x onerror=alert(1)&gt;" in body
    assert "<script" not in body and "&lt;script&gt;" in body
    assert newest().views == 1

    # Anyone who may not see the endpoint, signed in or not, gets an unknown link's bytes.
    unknown = Client().get(UNKNOWN)
    assert unknown.status_code == 404
    for who in (stranger, Client()):
        refused = who.get(path)
        assert refused.status_code == 404 and refused.content == unknown.content
        assert refused["X-Robots-Tag"].startswith("noindex")
    assert newest().views == 1  # refusals are not views

    audit = AuditEvent.objects.filter(capability__startswith="share_").order_by("id")
    assert [a.capability for a in audit] == ["share_create", "share_view"]
    view = audit.last()
    assert view.username == "colleague" and view.evidence["client"] == "127.0.0.0/24"
    assert "cookie" not in str(view.evidence).lower() and EMAIL not in str(view.evidence)
    assert [e.name for e in share_events] == [events.SHARE_CREATED]
    assert share_events[0].ids == {"share_id": row.pk, "session_id": SID, "kind": "inside"}


def test_an_outside_link_opens_without_a_session_only_after_a_second_admin_approves(
    login, users, shared_session, settings, share_events
):
    settings.HERMES_UI_SHARING = "outside"
    support, admin = login("support"), login("admin")
    made, path = share(support, kind="outside")
    assert made.status_code == 200 and 'id="share-pending"' in made.content.decode()
    assert [e.name for e in share_events] == [events.SHARE_CREATED, events.SHARE_APPROVAL_NEEDED]
    # Every admin but the sharer is told, as for a deletion awaiting approval.
    assert {u.username for u in kinds.audience(share_events[1])} == {"admin", "admin2"}
    notice = Notice(kind=kinds.SHARE_APPROVAL_NEEDED.key, ids={"share_id": newest().pk})
    assert compose.subject(notice).endswith(f"share link #{newest().pk} awaits your approval")
    anonymous = Client()
    unknown = anonymous.get(UNKNOWN).content
    assert anonymous.get(path).content == unknown and anonymous.get(path).status_code == 404
    assert support.get(path).status_code == 404  # not even for its sharer, until approved

    row = newest()
    listed = admin.get("/shares/").content.decode()
    assert f'id="share-{row.pk}" data-kind="outside" data-state="pending"' in listed
    assert "Approve" in listed
    # The sharer may not approve their own link, even as an admin.
    admin2 = login("admin2")
    _, own_path = share(admin2, kind="outside")
    assert admin2.post(f"/shares/{newest().pk}/approve/").status_code == 403
    assert own_path and anonymous.get(own_path).status_code == 404
    assert support.post(f"/shares/{row.pk}/approve/").status_code == 403

    assert admin.post(f"/shares/{row.pk}/approve/").status_code == 302
    row.refresh_from_db()
    assert row.approved_by == users["admin"] and row.approved_at is not None
    opened = anonymous.get(path)
    assert opened.status_code == 200 and "[redacted:api-key]" in opened.content.decode()
    view = AuditEvent.objects.filter(capability="share_view").get()
    assert view.username == "(system)" and view.evidence["client"] == "127.0.0.0/24"
    assert events.SHARE_APPROVED in [e.name for e in share_events]
    # Approving twice is refused, plainly.
    assert admin.post(f"/shares/{row.pk}/approve/").status_code == 409


def test_expiry_revocation_and_the_view_limit_answer_410(
    login, colleague, shared_session, share_events
):
    support = login("support")
    _, expiring = share(support)
    Share.objects.filter(pk=newest().pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    gone = colleague.get(expiring)
    assert gone.status_code == 410 and "expired" in gone.content.decode()
    assert gone["Cache-Control"] == "no-store"

    _, revoking = share(support)
    row = newest()
    assert colleague.get(revoking).status_code == 200
    assert colleague.post(f"/shares/{row.pk}/revoke/").status_code == 403  # not theirs
    assert support.post(f"/shares/{row.pk}/revoke/").status_code == 302
    answer = colleague.get(revoking)
    assert answer.status_code == 410 and "revoked" in answer.content.decode()
    assert events.SHARE_REVOKED in [e.name for e in share_events]

    _, once = share(support, max_views=1)
    assert colleague.get(once).status_code == 200
    used = colleague.get(once)
    assert used.status_code == 410 and "as many times" in used.content.decode()
    assert newest().views == 1

    # A link that can no longer open keeps no transcript: revoked at once, the others
    # when shares are next listed or made (the expired one went when the next was made).
    assert Share.objects.get(pk=row.pk).snapshot == {}
    assert list(Share.objects.exclude(snapshot={})) == [newest()]  # used up just now
    support.get("/shares/")
    assert not Share.objects.exclude(snapshot={}).exists()
    assert not Share.objects.exclude(title="").exists()


def test_the_periodic_round_blanks_an_expired_link_nobody_lists(login, shared_session):
    from hermes_ui.background import schedule

    share(login("support"))
    row = newest()
    assert schedule.run_now("share-purge") == 0 and newest().snapshot  # live: kept
    Share.objects.filter(pk=row.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert schedule.run_now("share-purge") == 1
    assert Share.objects.get(pk=row.pk).snapshot == {} and Share.objects.get(pk=row.pk).title == ""


def test_the_instance_switch_stops_existing_links_at_once(
    login, colleague, shared_session, settings
):
    settings.HERMES_UI_SHARING = "outside"
    support, admin = login("support"), login("admin")
    _, inside = share(support)
    _, outside = share(support, kind="outside")
    admin.post(f"/shares/{newest().pk}/approve/")
    assert Client().get(outside).status_code == 200

    settings.HERMES_UI_SHARING = "inside"
    assert Client().get(outside).status_code == 410
    assert colleague.get(inside).status_code == 200
    assert 'value="outside"' not in support.get(form_url()).content.decode()
    refused, _ = share(support, kind="outside")
    assert refused.status_code == 400 and Share.objects.count() == 2

    settings.HERMES_UI_SHARING = "off"
    assert colleague.get(inside).status_code == 410
    assert support.get(form_url()).status_code == 403
    page = support.get(session_url("local", SID)).content.decode()
    assert 'id="share-session"' not in page
    settings.HERMES_UI_SHARING = "inside"
    page = support.get(session_url("local", SID)).content.decode()
    assert 'id="share-session"' in page


def test_the_list_shows_admins_every_link_and_others_their_own(login, colleague, shared_session):
    support, admin = login("support"), login("admin")
    share(support)
    mine = newest()
    share(colleague)
    theirs = newest()
    own = support.get("/shares/").content.decode()
    assert f'id="share-{mine.pk}"' in own and f'id="share-{theirs.pk}"' not in own
    everything = admin.get("/shares/").content.decode()
    assert f'id="share-{mine.pk}"' in everything and f'id="share-{theirs.pk}"' in everything
    assert admin.post(f"/shares/{theirs.pk}/revoke/").status_code == 302
    assert f'id="share-{theirs.pk}"' not in admin.get("/shares/").content.decode()


def test_bad_input_is_a_clear_error_never_a_500(login, shared_session, stranger, settings):
    support = login("support")
    for days in (0, settings.HERMES_UI_SHARE_MAX_DAYS + 1, "soon"):
        answer, path = share(support, days=days)
        assert answer.status_code == 400 and path is None
    answer, _ = share(support, max_views=0)
    assert answer.status_code == 400
    answer, _ = share(support, preview="0" * 32)  # the session changed since the preview
    assert answer.status_code == 409 and 'id="share-changed"' in answer.content.decode()
    assert not Share.objects.exists()
    assert support.get("/e/local/share/").status_code == 400  # no id
    assert support.get(form_url("no-such-session")).status_code == 404
    assert stranger.get(form_url()).status_code == 404
    assert support.post("/s/anything/").status_code == 405
    assert support.get("/shares/999/revoke/").status_code == 405
    assert support.post("/shares/999/revoke/").status_code == 404
    share(support)
    # A person who may not see the session is told no more than of a share that is not there.
    assert stranger.post(f"/shares/{newest().pk}/revoke/").status_code == 404
    assert stranger.post(f"/shares/{newest().pk}/approve/").status_code == 404


def test_every_post_needs_its_csrf_token(users, shared_session):
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(users["support"])
    answer = guarded.post(form_url(), {"kind": "inside", "days": 7})
    assert answer.status_code == 403 and not Share.objects.exists()


def test_a_view_is_audited_with_the_clients_network_never_its_address():
    assert links.truncated("203.0.113.77") == "203.0.113.0/24"
    assert links.truncated("2001:db8:1234:5678::1") == "2001:db8:1234::/48"
    assert links.truncated("not an address") == "unknown" and links.truncated("") == "unknown"


def test_a_shared_lineage_is_masked_previewed_first_and_loses_an_erased_member(
    login, colleague, shared_session, mock_endpoint
):
    from hermes_ui.index import sync
    from hermes_ui.shares import erase

    kid = "share-me-kid"
    shared_session.add(kid, parent=SID, marker="branch", title=f"Follow-up for {EMAIL}")
    sync.sync(mock_endpoint, full=True)
    support = login("support")
    plain = support.get(form_url()).content.decode()
    assert 'id="share-lineage"' not in plain and 'id="preview-with-lineage"' in plain
    # Ticking the box after a preview without it shows the new preview first.
    refused, _ = share(support, lineage="on", preview=preview_digest(support))
    assert refused.status_code == 409 and 'id="share-lineage"' in refused.content.decode()

    with_lineage = support.get(form_url() + "?lineage=1").content.decode()
    assert 'id="share-lineage"' in with_lineage and kid in with_lineage
    assert EMAIL not in with_lineage and "Follow-up for [redacted:email]" in with_lineage
    digest = re.search(r'name="preview" value="([0-9a-f]+)"', with_lineage).group(1)
    made, path = share(support, lineage="on", preview=digest)
    assert made.status_code == 200 and path
    page = colleague.get(path).content.decode()
    assert kid in page and "Follow-up for [redacted:email]" in page and EMAIL not in page
    assert "this transcript" in page

    # The member's deletion takes its entry (id and title) out of this share's lineage.
    assert erase.erase(mock_endpoint, [kid]) == {"shares": 0, "share_lineage_entries": 1}
    assert kid not in colleague.get(path).content.decode()
    assert [e["id"] for e in newest().snapshot["lineage"]] == [SID]
