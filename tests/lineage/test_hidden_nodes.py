"""A lineage node of a source the reader may not see: drawn, never named (issue 48)."""

import pytest
from django.test import Client

from hermes_ui.access import grants
from hermes_ui.index import sync
from hermes_ui.web.links import session_url

pytestmark = pytest.mark.django_db

CANARY_ID = "canary-tg-7f3a"
CANARY_TITLE = "Canary telegram secret"


@pytest.fixture
def mixed_lineage(empty_hermes, mock_endpoint):
    """A cli root compressed into a telegram continuation (the canary) with a cli branch."""
    fake = empty_hermes
    fake.add("cli-root", at=100.0, title="Visible root")
    fake.end("cli-root", "compression", 150.0)
    fake.add(CANARY_ID, at=151.0, parent="cli-root", source="telegram", title=CANARY_TITLE)
    fake.end(CANARY_ID, "branched", 190.0)
    fake.add("cli-branch", at=200.0, parent=CANARY_ID, marker="branch", title="Visible branch")
    sync.sync(mock_endpoint, full=True)
    return mock_endpoint


@pytest.fixture
def cli_only(django_user_model):
    person = django_user_model.objects.create_user("cli-only")
    grants.grant("local", "support", ["cli"], user=person)
    client = Client()
    client.force_login(person)
    return client


def _assert_unnamed(html: str) -> None:
    assert CANARY_ID not in html
    assert CANARY_TITLE not in html
    assert "telegram" not in html


def test_the_graph_draws_a_hidden_node_without_naming_it(mixed_lineage, cli_only):
    page = cli_only.get(session_url("local", "cli-root", "lineage_page"))
    assert page.status_code == 200
    html = page.content.decode()
    _assert_unnamed(html)
    assert "a session you can&#39;t open" in html or "a session you can't open" in html
    assert "Visible branch" in html  # the shape stays: the branch below it is drawn
    # ... and the list fallback says the same without a link to it
    listed = cli_only.get(session_url("local", "cli-root", "lineage_page") + "?as=list")
    _assert_unnamed(listed.content.decode())
    assert "a session you can't open" in listed.content.decode()


def test_the_session_panel_hides_it_too(mixed_lineage, cli_only):
    panel = cli_only.get(session_url("local", "cli-branch", "lineage_panel"))
    assert panel.status_code == 200
    _assert_unnamed(panel.content.decode())


def test_a_person_who_sees_the_source_gets_the_node_named(mixed_lineage, login):
    html = login("support").get(session_url("local", "cli-root", "lineage_page")).content.decode()
    assert CANARY_TITLE in html and CANARY_ID in html


def test_the_drawing_has_one_unlinked_box_for_it(mixed_lineage, cli_only):
    from tests.lineage.helpers import links, node_texts, svg_in

    svg = svg_in(cli_only.get(session_url("local", "cli-root", "lineage_page")).content.decode())
    assert sum("a session you can't open" in box for box in node_texts(svg)) == 1
    assert len(node_texts(svg)) == 3  # the shape is right
    assert links(svg) == {session_url("local", "cli-root"), session_url("local", "cli-branch")}
