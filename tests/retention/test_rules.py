"""Retention rules without Hermes: bounded evaluation, versions, escaping, erasure."""

from __future__ import annotations

import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from hermes_ui.access.rules import access_of
from hermes_ui.index import store
from hermes_ui.retention import erase, evaluate
from hermes_ui.retention.models import RetentionRule, RetentionRun, RuleVersion

pytestmark = pytest.mark.django_db
OLD = time.time() - 90 * 86400
LONG_AGO = time.time() - 120 * 86400


def rows(prefix: str, n: int, source: str = "cron") -> list[dict]:
    return [
        {"id": f"{prefix}{i}", "source": source, "started_at": OLD, "last_active": OLD + i}
        for i in range(n)
    ]


def test_evaluating_a_rule_costs_the_same_queries_for_20_or_420_sessions(mock_endpoint, users):
    rule = RetentionRule.objects.create(
        **mock_endpoint.scope(),
        name="r",
        query="source:cron",
        age_days=30,
        updated_by=users["admin"],
    )
    store.upsert(mock_endpoint, rows("a", 20), 1, listed=True)
    access_of(rule.updated_by)  # the editor's grants, read once and kept (access.rules)
    with CaptureQueriesContext(connection) as few:
        small = evaluate.evaluate(mock_endpoint, rule)
    store.upsert(mock_endpoint, rows("b", 400) + rows("t", 30, "telegram"), 2, listed=True)
    with CaptureQueriesContext(connection) as many:
        large = evaluate.evaluate(mock_endpoint, rule)
    assert (small.matched, large.matched) == (20, 420)
    assert len(large.proposed) == 420 and not large.protected
    assert len(many.captured_queries) == len(few.captured_queries)


def test_editing_a_rule_makes_a_new_version_and_keeps_the_old(mock_endpoint, login):
    admin = login("admin")
    url = reverse("retention_rules", kwargs={"endpoint": "local"})
    admin.post(url, {"name": "cron", "query": "source:cron", "age_days": 30, "active": "on"})
    rule = RetentionRule.objects.get()
    edit = reverse("retention_rule", kwargs={"endpoint": "local", "rule": rule.pk})
    answer = admin.post(edit, {"name": "cron", "query": "source:cron closed:yes", "age_days": 45})
    assert answer.status_code == 302
    rule.refresh_from_db()
    assert (rule.version, rule.query, rule.age_days, rule.active) == (
        2,
        "source:cron closed:yes",
        45,
        False,
    )
    versions = list(RuleVersion.objects.filter(rule=rule).values_list("number", "query"))
    assert versions == [(2, "source:cron closed:yes"), (1, "source:cron")]


def test_a_bad_search_or_age_is_a_message_not_a_rule(mock_endpoint, login):
    admin = login("admin")
    url = reverse("retention_rules", kwargs={"endpoint": "local"})
    answer = admin.post(url, {"name": "x", "query": "role:user", "age_days": 0})
    assert answer.status_code == 400
    page = answer.content.decode()
    assert "filter messages, not sessions" in page and "greater than or equal to 1" in page
    assert not RetentionRule.objects.exists()


def test_hostile_rule_names_and_searches_are_escaped(mock_endpoint, login):
    admin = login("admin")
    hostile = '<script>alert("r")</script>'
    url = reverse("retention_rules", kwargs={"endpoint": "local"})
    admin.post(url, {"name": hostile, "query": f'source:"{hostile}"', "age_days": 30})
    rule = RetentionRule.objects.get()
    for page in (
        reverse("retention"),
        url,
        reverse("retention_rule", kwargs={"endpoint": "local", "rule": rule.pk}),
        reverse("retention_preview", kwargs={"endpoint": "local", "rule": rule.pk}),
    ):
        body = admin.get(page).content.decode()
        assert "<script>alert" not in body and "&lt;script&gt;alert" in body, page


def test_erasure_removes_a_deleted_session_from_what_runs_spared(mock_endpoint, users):
    rule = RetentionRule.objects.create(
        **mock_endpoint.scope(), name="r", query="source:cron", age_days=30
    )
    run = RetentionRun.objects.create(
        rule=rule,
        rule_version=1,
        **mock_endpoint.scope(),
        protected=[{"id": "gone", "why": "note"}, {"id": "stays", "why": "keep_tag"}],
    )
    assert erase.held(mock_endpoint, ["gone"]) == {"retention_runs": 1}
    assert erase.erase(mock_endpoint, ["gone"]) == {"retention_runs": 1}
    run.refresh_from_db()
    assert run.protected == [{"id": "stays", "why": "keep_tag"}]
    assert erase.held(mock_endpoint, ["gone"]) == {"retention_runs": 0}


def test_sessions_gone_long_after_they_ended_read_as_pruned_by_hermes(mock_endpoint, login):
    from datetime import timedelta

    from django.utils import timezone

    from hermes_ui.index.models import IndexedSession

    store.upsert(
        mock_endpoint,
        [
            {"id": "old-ended", "source": "cron", "started_at": LONG_AGO, "ended_at": LONG_AGO},
            {"id": "recent", "source": "cli", "started_at": time.time(), "ended_at": time.time()},
        ],
        1,
        listed=True,
    )
    IndexedSession.objects.update(vanished_at=timezone.now() - timedelta(minutes=5))
    page = login("admin").get(reverse("retention")).content.decode()
    assert 'data-session="old-ended" data-pruned="yes"' in page
    assert 'data-session="recent" data-pruned="no"' in page
    assert "deleted outside this dashboard" in page
