"""Retention per endpoint (issue 48): an endpoint's rules need admin there on every
source; keep tags, which span every endpoint, need an admin on ``*``."""

import pytest
from django.urls import reverse

from hermes_ui.retention.models import KeepTag, RetentionRule, RetentionRun
from hermes_ui.tags.models import Tag
from tests.deletion import per_endpoint
from tests.deletion.per_endpoint import assert_no_canary

two_fakes, endpoint_people, as_ = (
    per_endpoint.two_fakes,
    per_endpoint.endpoint_people,
    per_endpoint.as_,
)
pytestmark = pytest.mark.django_db

US_RULE = "Canary rule of the US"


@pytest.fixture
def rules(two_fakes, endpoint_people):
    eu, us = two_fakes
    made = {}
    for ep, name in [(eu, "EU cron rule"), (us, US_RULE)]:
        made[ep.id] = RetentionRule.objects.create(
            **ep.scope(),
            name=name,
            query="source:cron",
            age_days=30,
            updated_by=endpoint_people["root"],
        )
    made["us_run"] = RetentionRun.objects.create(
        rule=made["us"], rule_version=1, **us.scope(), protected=[{"id": "x", "why": "keep_tag"}]
    )
    return made


def test_the_overview_lists_only_rules_of_managed_endpoints(rules, as_):
    page = as_("eu_admin").get(reverse("retention")).content.decode()
    assert "EU cron rule" in page
    assert_no_canary(page, US_RULE)
    assert US_RULE in as_("root").get(reverse("retention")).content.decode()
    limited = as_("eu_cli_admin").get(reverse("retention")).content.decode()
    assert_no_canary(limited, US_RULE, "EU cron rule")


def test_rules_runs_and_new_rules_of_an_unseen_endpoint_answer_404(rules, as_):
    eu_admin = as_("eu_admin")
    us_rule = rules["us"]
    for url in [
        reverse("retention_rules", kwargs={"endpoint": "us"}),
        reverse("retention_rule", kwargs={"endpoint": "us", "rule": us_rule.pk}),
        reverse("retention_preview", kwargs={"endpoint": "us", "rule": us_rule.pk}),
        reverse("retention_run", kwargs={"endpoint": "us", "run": rules["us_run"].pk}),
    ]:
        assert eu_admin.get(url).status_code == 404, url
    made = eu_admin.post(
        reverse("retention_rules", kwargs={"endpoint": "us"}),
        {"name": "sneaky", "query": "source:cron", "age_days": 30, "active": "on"},
    )
    assert made.status_code == 404
    assert not RetentionRule.objects.filter(name="sneaky").exists()
    # the rule of one's own endpoint opens
    own = reverse("retention_rule", kwargs={"endpoint": "eu", "rule": rules["eu"].pk})
    assert eu_admin.get(own).status_code == 200


def test_a_source_limited_admin_manages_no_rule_of_the_endpoint(rules, as_):
    limited = as_("eu_cli_admin")
    assert limited.get(reverse("retention_rules", kwargs={"endpoint": "eu"})).status_code == 403
    answer = limited.post(
        reverse("retention_rules", kwargs={"endpoint": "eu"}),
        {"name": "cli rule", "query": "source:cli", "age_days": 30, "active": "on"},
    )
    assert answer.status_code == 403
    assert not RetentionRule.objects.filter(name="cli rule").exists()


def test_keep_tags_are_instance_administration(two_fakes, as_):
    tag = Tag.objects.create(name="legal-hold")
    add = {"op": "add", "tag": tag.pk}
    assert as_("eu_admin").post(reverse("retention_keep_tags"), add).status_code == 403
    assert not KeepTag.objects.exists()
    assert as_("root").post(reverse("retention_keep_tags"), add).status_code == 302
    assert KeepTag.objects.filter(tag=tag).exists()
