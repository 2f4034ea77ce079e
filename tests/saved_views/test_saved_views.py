"""Saved views: personal and shared, who changes what, the default view, built-ins."""

import re

import pytest

from hermes_ui.audit.models import AuditEvent
from hermes_ui.index import sync
from hermes_ui.saved_views.models import DefaultView, SavedView
from hermes_ui.search import facets
from tests.index.test_sync import seed_lineage

pytestmark = pytest.mark.django_db
HOSTILE = "<script>alert('view')</script>"


@pytest.fixture
def views_indexed(empty_hermes, mock_endpoint):
    seed_lineage(empty_hermes)
    empty_hermes.add("failed", at=300.0, title="Crashed run")
    empty_hermes.end("failed", "error", 310.0)
    sync.sync(mock_endpoint, full=True)
    return mock_endpoint


def _bar(html: str) -> str:
    return html.split('id="views-bar"', 1)[1].split("</nav>", 1)[0]


def _save(client, **data):
    return client.post("/e/local/views/save/", {"name": "v", **data})


def test_a_shared_view_is_seen_by_others_and_a_personal_one_is_not(views_indexed, login):
    reviewer, support = login("reviewer"), login("support")
    shared = _save(reviewer, name="Team branches", q="kind:branch", shared="on")
    assert shared.status_code == 302
    assert shared["Location"].startswith("/e/local/sessions/?q=kind%3Abranch&view=view%3A")
    _save(reviewer, name="My roots", q="kind:root")
    bar = _bar(support.get("/e/local/sessions/", {"view": "all"}).content.decode())
    assert "Team branches" in bar and 'title="Shared by reviewer"' in bar
    assert "My roots" not in bar
    opened = support.get(shared["Location"]).content.decode()
    assert "1 matching session." in opened and '"Select br"' in opened
    assert re.search(r'aria-current="page"[^>]*>Team branches<', _bar(opened))
    personal = SavedView.objects.get(name="My roots")
    # Others may not change, delete or default to it: it does not exist for them.
    assert support.post(f"/e/local/views/{personal.pk}/", {"name": "x"}).status_code == 404
    assert support.post(f"/e/local/views/{personal.pk}/delete/").status_code == 404
    made_default = support.post("/e/local/views/default/", {"key": f"view:{personal.pk}"})
    assert made_default.status_code == 400
    # A shared view is deleted by its owner or an admin, not by another user.
    team = SavedView.objects.get(name="Team branches")
    assert support.post(f"/e/local/views/{team.pk}/delete/").status_code == 403
    assert login("admin").post(f"/e/local/views/{team.pk}/delete/").status_code == 302
    assert not SavedView.objects.filter(pk=team.pk).exists()
    views = AuditEvent.objects.filter(capability__startswith="views.")  # not the fixture's grants
    capabilities = list(views.values_list("capability", flat=True).order_by("id"))
    assert capabilities == ["views.save", "views.save", "views.delete"]


def test_only_reviewers_and_admins_share(views_indexed, login):
    answer = _save(login("support"), name="Mine", q="refund", shared="on")
    assert answer.status_code == 400
    assert "Only reviewers and admins share views" in answer.content.decode()
    assert _save(login("support"), name="Mine", q="refund").status_code == 302
    assert SavedView.objects.get().shared is False
    again = _save(login("support"), name="MINE", q="x")
    assert again.status_code == 400 and "already have a view" in again.content.decode()
    bad = _save(login("support"), name="Broken", q="kind:nonsense")
    assert bad.status_code == 400 and "The search is not valid" in bad.content.decode()


def test_owners_rename_and_unshare(views_indexed, login):
    reviewer = login("reviewer")
    _save(reviewer, name="Old", q="kind:root", shared="on")
    view = SavedView.objects.get()
    answer = reviewer.post(f"/e/local/views/{view.pk}/", {"name": "New name"})
    assert answer.status_code == 302
    view.refresh_from_db()
    assert (view.name, view.shared) == ("New name", False)
    assert "New name" not in _bar(
        login("support").get("/e/local/sessions/?view=all").content.decode()
    )


def test_the_default_view_applies_and_all_sessions_stays_reachable(views_indexed, login):
    client = login("support")
    _save(client, name="Roots", q="kind:root", state="closed")
    view = SavedView.objects.get()
    assert client.get("/e/local/sessions/").status_code == 200  # no default yet
    assert client.post("/e/local/views/default/", {"key": f"view:{view.pk}"}).status_code == 302
    opened = client.get("/e/local/sessions/")
    assert opened.status_code == 302
    assert (
        opened["Location"] == f"/e/local/sessions/?q=kind%3Aroot&state=closed&view=view%3A{view.pk}"
    )
    html = client.get(opened["Location"]).content.decode()
    assert "3 matching sessions" in html  # the closed roots: root, par and failed
    everything = client.get("/e/local/sessions/", {"view": "all"})
    assert everything.status_code == 200 and "6 matching sessions" in everything.content.decode()
    # Another user's index is not affected.
    assert login("reviewer").get("/e/local/sessions/").status_code == 200
    # A built-in as default; "all" turns defaults off.
    client.post("/e/local/views/default/", {"key": "builtin:errors"})
    assert "reason%3Aerror" in client.get("/e/local/sessions/")["Location"]
    client.post("/e/local/views/default/", {"key": "all"})
    assert client.get("/e/local/sessions/").status_code == 200
    assert DefaultView.objects.get().key == "all"
    # Deleting the view one opens with turns that default off.
    client.post("/e/local/views/default/", {"key": f"view:{view.pk}"})
    assert client.get("/e/local/sessions/").status_code == 302
    assert client.post(f"/e/local/views/{view.pk}/delete/").status_code == 302
    assert client.get("/e/local/sessions/").status_code == 200
    assert not DefaultView.objects.exists()


def test_built_in_views(views_indexed, login, monkeypatch):
    client = login("support")
    bar = _bar(client.get("/e/local/sessions/?view=all").content.decode())
    assert "Closed with errors" in bar and "New since I looked" in bar
    # "Unreviewed" is offered only while the facets table has review's ``reviewed:``.
    assert facets.get("reviewed") is not None
    assert "Unreviewed" in bar and "reviewed%3Ano" in bar
    monkeypatch.delitem(facets.loaded(), "reviewed")
    bar = _bar(client.get("/e/local/sessions/?view=all").content.decode())
    assert "Unreviewed" not in bar and "Closed with errors" in bar
    errors = client.get("/e/local/sessions/", {"q": "reason:error,failed,orphaned_compression"})
    html = errors.content.decode()
    assert "1 matching session." in html and "Crashed run" in html


def test_hostile_view_names_are_escaped(views_indexed, login):
    _save(login("reviewer"), name=HOSTILE, q="kind:root", shared="on")
    for client in (login("reviewer"), login("support")):
        for url in ("/e/local/sessions/?view=all", "/e/local/views/"):
            html = client.get(url).content.decode()
            assert "&lt;script&gt;alert(&#x27;view&#x27;)&lt;/script&gt;" in html, url
            assert HOSTILE not in html, url
    saved = AuditEvent.objects.get(capability="views.save")
    assert "(" not in str(saved.evidence)  # the id and kind, never the name
