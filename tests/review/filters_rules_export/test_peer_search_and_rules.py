"""Review filters with transcript search, and a sampled rule run by the worker: real peer."""

import io
import math
import re

import pytest
from django.core.management import call_command

from devtools.peer import demo_ids as ids
from hermes_ui.index import sync
from hermes_ui.index.models import IndexSyncState
from hermes_ui.review import rules
from hermes_ui.review.models import Item, Rule
from tests.review.filters_rules_export.made import item, review
from tests.support.tasks import drain

pytestmark = pytest.mark.peer


def results(html: str) -> str:
    return html.split('id="content-results"', 1)[1].split("</section>", 1)[0]


@pytest.mark.django_db
def test_words_with_reviewed_and_label_filters_narrow_transcript_hits(
    dataset_endpoint, users, login, version, queue_maker
):
    report = sync.sync(dataset_endpoint, full=True)
    assert report.error_code == "" and report.content_reads >= 199
    queue = queue_maker(dataset_endpoint)
    done = item(queue, ids.BRANCH_A, state=Item.COMPLETED)
    review(done, users["reviewer"], version, {"policy": "privacy"})
    client = login("support")

    def hits(q: str) -> str:
        answer = client.get("/e/local/sessions/", {"q": q})
        assert answer.status_code == 200, answer.content[:500]
        return results(answer.content.decode())

    everything = hits("Alfama")
    assert f'title="{ids.BRANCH_A}"' in everything and f'title="{ids.BRANCH_B}"' in everything
    unreviewed = hits("Alfama reviewed:no")
    assert f'title="{ids.BRANCH_A}"' not in unreviewed
    assert f'title="{ids.BRANCH_B}"' in unreviewed
    only = hits("Alfama label:policy=privacy")
    assert re.findall(r'<code title="([^"]+)"', only) == [ids.BRANCH_A]
    queued = hits("Alfama queue:triage")
    assert re.findall(r'<code title="([^"]+)"', queued) == [ids.BRANCH_A]


@pytest.mark.django_db(transaction=True)
def test_a_half_sampled_rule_adds_about_half_the_matches_once(
    dataset_endpoint, users, version, queue_maker
):
    queue = queue_maker(dataset_endpoint, "telegram half", owner=users["reviewer"])
    rule = Rule.objects.create(
        queue=queue, query="source:telegram", percent=50, created_by=users["reviewer"]
    )
    call_command("run_periodic", "index", stdout=io.StringIO())  # sync, then rules
    assert drain() == 1  # the rules' task the refresh enqueued
    assert IndexSyncState.objects.get(endpoint="local").last_sync_at is not None
    matches = rules.matches(dataset_endpoint, "source:telegram")
    n = len(matches)
    assert n >= 40, n  # the demo seed's telegram sessions
    added = set(queue.items.values_list("session_id", flat=True))
    rule.refresh_from_db()
    assert rule.last_run_at is not None and rule.last_added == len(added)
    # Binomial(n, 1/2): within four standard deviations of n/2.
    assert abs(len(added) - n / 2) <= 4 * math.sqrt(n) / 2, (len(added), n)
    assert added <= set(matches)
    assert added == {sid for sid in matches if rules.sampled(rule.pk, sid, 50)}
    call_command("run_periodic", "index", stdout=io.StringIO())
    assert drain() == 1
    rule.refresh_from_db()
    assert rule.last_added == 0
    assert queue.items.count() == len(added)  # nothing twice, and the left-out stay out
    assert set(queue.items.values_list("session_id", flat=True)) == added
