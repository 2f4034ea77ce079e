"""Rules over a fake Hermes: validation, the page, Run now, always + sampling, no repeats."""

import re

import pytest
from django.urls import reverse

from hermes_ui.audit.models import AuditEvent
from hermes_ui.index import sync
from hermes_ui.review import rules
from hermes_ui.review.models import Item, Rule
from tests.index.test_sync import seed_many

pytestmark = pytest.mark.django_db


@pytest.fixture
def sixty(empty_hermes, mock_endpoint):
    """60 sessions s0000..s0059; the first ten closed with reason ``error``."""
    seed_many(empty_hermes, 60)
    for i in range(10):
        empty_hermes.end(f"s{i:04d}", "error", 2_000_000.0)
    sync.sync(mock_endpoint, full=True)
    return mock_endpoint


def url(queue) -> str:
    return reverse("review_rules", kwargs={"endpoint": "local", "queue": queue.pk})


def queued(queue) -> list[str]:
    return list(queue.items.values_list("session_id", flat=True))


def test_a_rule_search_is_checked_like_the_index_search():
    assert rules.problems("closed:yes source:cli") == []
    assert rules.problems("refund open:maybe") == ["open: takes yes or no (not 'maybe')."]
    assert rules.problems("refund role:user") == [
        "role: filter messages, not sessions; a rule cannot use them."
    ]
    assert rules.problems("  ") == ["An empty search matches every session; add words or filters."]


def test_sampling_is_a_fixed_share_per_rule():
    taken = [rules.sampled(7, f"s{i}", 30) for i in range(4000)]
    assert taken == [rules.sampled(7, f"s{i}", 30) for i in range(4000)]  # the same every time
    assert 1100 < sum(taken) < 1300  # 30 % of 4,000 is 1,200; sd 29
    assert not any(rules.sampled(7, f"s{i}", 0) for i in range(500))
    assert all(rules.sampled(7, f"s{i}", 100) for i in range(500))


def test_the_owner_adds_a_rule_runs_it_and_sees_what_it_added(sixty, users, login, queue_maker):
    queue = queue_maker(sixty, owner=users["reviewer"])
    client = login("reviewer")
    page = client.get(url(queue)).content.decode()
    assert 'id="no-rules"' in page and 'id="rule-form"' in page
    bad = client.post(url(queue), {"query": "refund role:user", "percent": "20"})
    assert bad.status_code == 400 and "filter messages, not sessions" in bad.content.decode()
    answer = client.post(url(queue), {"query": "closed:no", "percent": "0", "always": "closed:yes"})
    assert answer.status_code == 302 and answer["Location"] == url(queue)
    rule = Rule.objects.get(queue=queue)
    assert (rule.query, rule.percent, rule.always, rule.last_run_at) == (
        "closed:no",
        0,
        "closed:yes",
        None,
    )
    assert client.post(url(queue), {"action": "run", "rule": rule.pk}).status_code == 302
    # Every closed session (the "always" search) and none of the 0 % of the rest.
    assert sorted(queued(queue)) == [f"s{i:04d}" for i in range(10)]
    assert set(queue.items.values_list("added_via", "rule_id")) == {("rule", rule.pk)}
    page = client.get(url(queue)).content.decode()
    row = re.search(rf'<tr id="rule-{rule.pk}">.*?</tr>', page, re.S).group(0)
    assert '<td class="rule-added">10</td>' in row and "not yet" not in row
    event = AuditEvent.objects.filter(capability="review.rule_run").get()
    assert event.username == "reviewer" and event.evidence["count"] == 10
    assert "closed" not in str(event.evidence)  # never the search text
    assert client.post(url(queue), {"action": "run", "rule": rule.pk}).status_code == 302
    rule.refresh_from_db()
    assert rule.last_added == 0 and len(queued(queue)) == 10  # nothing twice


def test_only_the_owner_or_an_admin_changes_rules(sixty, users, login, queue_maker):
    queue = queue_maker(sixty, owner=users["admin"])
    rule = Rule.objects.create(queue=queue, query="closed:yes", percent=100)
    reviewer = login("reviewer")
    page = reviewer.get(url(queue)).content.decode()
    assert "closed:yes" in page and 'id="rule-form"' not in page and "Run now" not in page
    assert reviewer.post(url(queue), {"action": "run", "rule": rule.pk}).status_code == 403
    assert reviewer.post(url(queue), {"query": "closed:no", "percent": "5"}).status_code == 403
    assert not queue.items.exists()
    admin2 = login("admin2")  # any admin
    assert admin2.post(url(queue), {"action": "delete", "rule": rule.pk}).status_code == 302
    assert not Rule.objects.exists()
    other = queue_maker(sixty, name="other", owner=users["admin"])
    kept = Rule.objects.create(queue=other, query="closed:yes")
    missing = admin2.post(url(queue), {"action": "run", "rule": kept.pk})
    assert missing.status_code == 400 and "no such rule" in missing.content.decode()


def test_a_rule_never_adds_what_the_queue_holds(sixty, users, queue_maker):
    queue = queue_maker(sixty)
    Item.objects.create(**sixty.scope(), queue=queue, session_id="s0003", added_via="page")
    rule = Rule.objects.create(queue=queue, query="closed:yes", percent=100)
    assert rules.run(sixty, rule) == 9
    assert rules.run(sixty, rule) == 0
    assert queue.items.filter(session_id="s0003").get().added_via == "page"
    assert queue.items.count() == 10


def test_a_hostile_search_shows_as_text(sixty, users, login, queue_maker):
    queue = queue_maker(sixty, owner=users["reviewer"])
    client = login("reviewer")
    hostile = '"<script>alert(1)</script>" closed:yes'
    assert client.post(url(queue), {"query": hostile, "percent": "10"}).status_code == 302
    page = client.get(url(queue)).content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot; closed:yes" in page
