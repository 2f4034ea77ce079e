"""Tags against the real Hermes peer (the shared demo seed; tags never change Hermes):
filters combined with transcript search, and hostile names on every page that shows them."""

import re

import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.index import sync
from hermes_ui.index.models import ContentMessage
from hermes_ui.tags.models import SessionTag, Tag
from hermes_ui.web.links import session_url
from tests.lineage.helpers import box_with, svg_in

pytestmark = [pytest.mark.django_db, pytest.mark.peer]
HOSTILE = "<script>alert('tag')</script>"
PHRASE = "what about the edge cases"  # in the follow-ups of many seeded sessions


@pytest.fixture
def tagged_index(peer_endpoint):
    report = sync.sync(peer_endpoint, full=True)
    assert report.error_code == "" and report.content_reads >= 199
    return peer_endpoint


def _results(html: str) -> list[str]:
    """The transcripts of the content results, in order (their session page links)."""
    part = html.split('id="content-results"', 1)[1].split("</section>", 1)[0]
    return re.findall(r'<p class="hit-head">\s*<a href="([^"]+)"', part)


def _search(client, q):
    answer = client.get("/e/local/sessions/", {"q": q})
    assert answer.status_code == 200, answer.content[:600]
    return answer.content.decode()


def test_tag_filters_combine_with_content_search(tagged_index, login):
    having = sorted(
        set(
            ContentMessage.objects.filter(text__icontains=PHRASE).values_list(
                "session_id", flat=True
            )
        )
    )
    assert len(having) >= 5
    triage = Tag.objects.create(name="triage")
    login("reviewer").post(
        "/e/local/bulk/tags/",
        {"stage": "confirm", "ids": [*having[:2], ids.TOOL_SESSION], "tag": triage.pk, "op": "add"},
    )
    client = login("support")
    both = _search(client, f'"{PHRASE}" tag:triage')
    assert "2 transcripts" in both.split('id="content-summary"', 1)[1][:300]
    found = _results(both)
    assert sorted(found) == sorted(session_url("local", s) for s in having[:2])
    assert session_url("local", ids.TOOL_SESSION) not in both.split('id="content-results"')[1]
    without = _search(client, f'"{PHRASE}" -tag:triage')
    summary = without.split('id="content-summary"', 1)[1][:300]
    assert f"{len(having) - 2} transcripts" in summary
    shown = "".join(_results(without))
    assert session_url("local", having[0]) not in shown
    assert session_url("local", having[1]) not in shown
    # The id/title/preview table: tag alone matches the three tagged sessions.
    assert "3 matching sessions" in _search(client, "tag:triage")


def test_hostile_tag_names_are_escaped_in_the_index_session_page_and_lineage(tagged_index, login):
    tag = Tag.objects.create(name=HOSTILE, colour="red")
    reviewer = login("reviewer")
    for session_id in (ids.BRANCH_A, ids.XSS_TITLE_SESSION):
        answer = reviewer.post(
            session_url("local", session_id, "session_tags"), {"op": "add", "tag": tag.pk}
        )
        assert answer.status_code == 302
    escaped = "&lt;script&gt;alert(&#x27;tag&#x27;)&lt;/script&gt;"
    support = login("support")
    index = _search(support, f'tag:"{HOSTILE}"')
    assert "2 matching sessions" in index and escaped in index and HOSTILE not in index
    detail = support.get(session_url("local", ids.XSS_TITLE_SESSION)).content.decode()
    region = detail.split('id="session-tags"', 1)[1].split("</section>", 1)[0]
    assert escaped in region and HOSTILE not in detail
    lineage = support.get(session_url("local", ids.BRANCH_PARENT, "lineage_page"))
    html = lineage.content.decode()
    assert lineage.status_code == 200 and "<script>alert(" not in html
    box = box_with(svg_in(html), ids.BRANCH_A_TITLE)
    assert HOSTILE in box  # the SVG's text (parsed back) is the name, drawn as text
    assert SessionTag.objects.count() == 2
