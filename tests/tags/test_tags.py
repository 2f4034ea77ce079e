"""Tags with a fake Hermes: the managed list, one session, a bulk selection, the index."""

import pytest

from hermes_ui.audit.models import AuditEvent
from hermes_ui.deletion import erasure
from hermes_ui.index import sync
from hermes_ui.tags.models import SessionTag, Tag
from hermes_ui.web.links import session_url
from tests.index.test_sync import seed_lineage

pytestmark = pytest.mark.django_db
HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture
def tags_indexed(empty_hermes, mock_endpoint):
    seed_lineage(empty_hermes)
    sync.sync(mock_endpoint, full=True)
    return mock_endpoint


def test_admins_define_tags_with_checked_unique_names(login):
    admin = login("admin")
    made = admin.post("/tags/", {"name": "  Refund   request ", "colour": "red"})
    assert made.status_code == 302
    tag = Tag.objects.get()
    assert (tag.name, tag.colour) == ("Refund request", "red")
    for name, message in [
        ("refund REQUEST", "Another tag already has this name"),
        ("bad\x07bell", "control characters"),
        ('say "hi"', "double quotes"),
        ("x" * 41, "at most 40 characters"),
    ]:
        answer = admin.post("/tags/", {"name": name, "colour": "red"})
        assert answer.status_code == 400 and message in answer.content.decode(), name
    assert Tag.objects.count() == 1
    edited = admin.post(f"/tags/{tag.pk}/", {"name": "Refunds", "colour": "blue"})
    assert edited.status_code == 302
    assert Tag.objects.get().name == "Refunds"
    events = AuditEvent.objects.filter(capability__startswith="tags.").order_by("id")
    assert [e.capability for e in events] == ["tags.define", "tags.edit"]
    assert all(e.evidence == {"id": tag.pk} for e in events)  # the id, never the name
    assert login("reviewer").get("/tags/").status_code == 403


def test_reviewers_tag_a_session_without_javascript_and_with_htmx(tags_indexed, login):
    tag = Tag.objects.create(name=HOSTILE, colour="purple")
    other = Tag.objects.create(name="later")
    client = login("reviewer")
    url = session_url("local", "par", "session_tags")
    answer = client.post(url, {"op": "add", "tag": tag.pk})
    assert answer.status_code == 302 and answer["Location"] == session_url("local", "par")
    again = client.post(url, {"op": "add", "tag": tag.pk})  # idempotent
    assert again.status_code == 302
    assert SessionTag.objects.filter(session_id="par").count() == 1
    swapped = client.post(url, {"op": "add", "tag": other.pk}, headers={"HX-Request": "true"})
    html = swapped.content.decode()
    assert swapped.status_code == 200 and html.lstrip().startswith("<section")
    assert 'id="session-tags"' in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert HOSTILE not in html
    removed = client.post(url, {"op": "remove", "tag": other.pk}, headers={"HX-Request": "true"})
    region = removed.content.decode()
    assert 'badge-kind-tag">later<' not in region and f'value="{other.pk}">later</option>' in region
    events = AuditEvent.objects.filter(capability__startswith="tags.").order_by("id")
    assert [(e.capability, e.session_id, e.evidence["count"]) for e in events] == [
        ("tags.add", "par", 1),
        ("tags.add", "par", 0),
        ("tags.add", "par", 1),
        ("tags.remove", "par", 1),
    ]
    assert HOSTILE not in str([e.evidence for e in events])
    bad = client.post(url, {"op": "add", "tag": "999"})
    assert bad.status_code == 400 and "Select a valid choice" in bad.content.decode()


def test_tagging_a_session_nobody_knows_is_not_found(tags_indexed, login):
    tag = Tag.objects.create(name="x")
    answer = login("admin").post(
        session_url("local", "ghost", "session_tags"), {"op": "add", "tag": tag.pk}
    )
    assert answer.status_code == 404
    assert not SessionTag.objects.exists()


def test_bulk_tagging_confirms_then_changes_only_what_differs(tags_indexed, login):
    tag = Tag.objects.create(name="triage", colour="orange")
    client = login("reviewer")
    review = client.post("/e/local/bulk/tags/", {"all": "1", "q": "kind:root"})
    html = review.content.decode()
    assert review.status_code == 200 and 'id="bulk-tags-form"' in html
    assert html.count('name="ids"') == 2  # root and par
    confirm = {"stage": "confirm", "ids": ["root", "par"], "tag": tag.pk, "op": "add"}
    first = client.post("/e/local/bulk/tags/", confirm, follow=True)
    assert "added to 2 session(s); 0 already had it" in first.content.decode()
    second = client.post("/e/local/bulk/tags/", confirm, follow=True)
    assert "added to 0 session(s); 2 already had it" in second.content.decode()
    assert set(SessionTag.objects.values_list("session_id", flat=True)) == {"root", "par"}
    removed = client.post("/e/local/bulk/tags/", {**confirm, "ids": ["par", "br"], "op": "remove"})
    assert removed.status_code == 302
    assert list(SessionTag.objects.values_list("session_id", flat=True)) == ["root"]
    last = AuditEvent.objects.filter(capability="tags.remove").get()
    assert last.evidence == {"id": tag.pk, "count": 1, "sessions": ["par"], "op": "remove"}
    assert client.post("/e/local/bulk/tags/", {**confirm, "tag": ""}).status_code == 400


def test_tag_filters_and_badges_in_the_index(tags_indexed, login):
    hot = Tag.objects.create(name=HOSTILE, colour="red")
    cold = Tag.objects.create(name="cold")
    SessionTag.objects.create(**tags_indexed.scope(), session_id="par", tag=hot)
    SessionTag.objects.create(**tags_indexed.scope(), session_id="br", tag=hot)
    SessionTag.objects.create(**tags_indexed.scope(), session_id="br", tag=cold)
    client = login("support")
    html = client.get(
        "/e/local/sessions/", {"q": f'tag:"{HOSTILE}"', "view": "all"}
    ).content.decode()
    assert "2 matching sessions" in html
    assert 'badge-kind-tag" title="Tag">&lt;img src=x onerror=alert(1)&gt;<' in html
    assert HOSTILE not in html
    html = client.get(
        "/e/local/sessions/", {"q": f'tag:"{HOSTILE.upper()}" -tag:COLD'}
    ).content.decode()
    assert "1 matching session." in html and '"Select par"' in html
    html = client.get("/e/local/sessions/", {"q": "-tag:cold kind:root"}).content.decode()
    assert "2 matching sessions" in html  # root and par
    missing = client.get("/e/local/sessions/", {"q": "tag:nope"})
    assert missing.status_code == 400 and "no tag is named" in missing.content.decode()
    # Deleting the tag takes it off every session.
    assert login("admin").post(f"/tags/{cold.pk}/delete/").status_code == 302
    assert not SessionTag.objects.filter(session_id="br", tag_id=cold.pk).exists()


def test_the_session_page_shows_tags_to_everyone_and_the_form_to_reviewers(tags_indexed, login):
    tag = Tag.objects.create(name=HOSTILE, colour="green")
    SessionTag.objects.create(**tags_indexed.scope(), session_id="par", tag=tag)
    support = login("support").get(session_url("local", "par")).content.decode()
    assert 'id="session-tags"' in support and "&lt;img src=x onerror=alert(1)&gt;" in support
    assert HOSTILE not in support and "session_tags" not in support
    assert 'name="op"' not in support
    reviewer = login("reviewer").get(session_url("local", "par")).content.decode()
    assert 'name="op" value="remove"' in reviewer and "csrfmiddlewaretoken" in reviewer


def test_erasure_removes_a_deleted_sessions_tags(tags_indexed):
    tag = Tag.objects.create(name="gone")
    SessionTag.objects.create(**tags_indexed.scope(), session_id="par", tag=tag)
    SessionTag.objects.create(**tags_indexed.scope(), session_id="br", tag=tag)
    assert erasure.local_copies(tags_indexed, ["par"])["session_tags"] == 1
    counts = erasure.erase(tags_indexed, ["par"])
    assert counts["session_tags"] == 1
    assert list(SessionTag.objects.values_list("session_id", flat=True)) == ["br"]
    assert Tag.objects.filter(pk=tag.pk).exists()  # the tag itself stays in the list
