"""Keep tags protect themselves: held by the tag's id, removed from sessions by admins only.

With a fake Hermes (the tags' own fixture): a rename keeps the protection, a
reviewer cannot strip a keep tag on the page, in bulk or through the API, an
admin's removal is audited with the tag's name, and the run page names the
sessions whose protection went since the rule's previous run.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from hermes_ui.api_tokens import tokens
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import AuditEvent
from hermes_ui.deletion.models import DeletionBatch, DeletionRequest
from hermes_ui.retention import evaluate
from hermes_ui.retention.models import KeepTag, RetentionRule, RetentionRun
from hermes_ui.tags.models import SessionTag, Tag
from hermes_ui.web.links import session_url
from tests.tags.test_tags import tags_indexed  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def kept(tags_indexed, login):  # noqa: F811 (the imported fixture)
    """``legal-hold`` on sessions par and root, made a keep tag on /retention/."""
    tag = Tag.objects.create(name="legal-hold")
    answer = login("admin").post(reverse("retention_keep_tags"), {"op": "add", "tag": tag.pk})
    assert answer.status_code == 302
    for sid in ("par", "root"):
        SessionTag.objects.create(**tags_indexed.scope(), session_id=sid, tag=tag)
    return tag


def protected(endpoint, sid: str) -> bool:
    since = timezone.now() - timedelta(days=30)
    return evaluate.direct_protection(endpoint, [sid], since).get(sid) == "keep_tag"


def test_renaming_a_keep_tag_keeps_its_sessions_protected(kept, tags_indexed, login):  # noqa: F811
    admin = login("admin")
    assert protected(tags_indexed, "par")
    renamed = admin.post(f"/tags/{kept.pk}/", {"name": "litigation", "colour": "red"})
    assert renamed.status_code == 302
    assert protected(tags_indexed, "par")
    page = admin.get(reverse("retention")).content.decode()
    keep_list = page.split('id="keep-tags"')[1].split("</ul>")[0]
    assert "litigation" in keep_list and "legal-hold" not in keep_list
    # Stop protecting: the form names the tag by id, so the new name works too.
    admin.post(reverse("retention_keep_tags"), {"op": "remove", "tag": kept.pk})
    assert not KeepTag.objects.exists() and not protected(tags_indexed, "par")
    event = AuditEvent.objects.filter(capability="retention.keep_tag").order_by("id").last()
    assert event.evidence == {"id": kept.pk, "keep_tag": "litigation", "op": "remove"}


def test_a_reviewer_cannot_strip_a_keep_tag_on_the_page(kept, tags_indexed, login):  # noqa: F811
    other = Tag.objects.create(name="triage")
    SessionTag.objects.create(**tags_indexed.scope(), session_id="par", tag=other)
    reviewer = login("reviewer")
    url = session_url("local", "par", "session_tags")
    refused = reviewer.post(url, {"op": "remove", "tag": kept.pk})
    assert refused.status_code == 403 and "only an admin" in refused.content.decode()
    htmx = reviewer.post(url, {"op": "remove", "tag": kept.pk}, headers={"HX-Request": "true"})
    assert htmx.status_code == 403 and 'id="session-tags"' in htmx.content.decode()
    # The region offers the reviewer no remove button for it, and says why.
    region = htmx.content.decode()
    assert f'data-locked="{kept.pk}"' in region
    assert f'name="tag" value="{kept.pk}"' not in region and f'value="{other.pk}"' in region
    assert protected(tags_indexed, "par")
    # An ordinary tag is still the reviewer's to remove, and adding a keep tag is fine.
    assert reviewer.post(url, {"op": "remove", "tag": other.pk}).status_code == 302
    assert reviewer.post(url, {"op": "add", "tag": kept.pk}).status_code == 302
    admin = login("admin")
    assert admin.post(url, {"op": "remove", "tag": kept.pk}).status_code == 302
    assert not protected(tags_indexed, "par")
    event = AuditEvent.objects.filter(capability="tags.remove").order_by("id").last()
    assert event.username == "admin" and event.evidence["keep_tag"] == "legal-hold"
    assert event.evidence["sessions"] == ["par"]


def test_a_reviewer_cannot_strip_a_keep_tag_in_bulk(kept, tags_indexed, login):  # noqa: F811
    confirm = {"stage": "confirm", "ids": ["root", "par"], "tag": kept.pk, "op": "remove"}
    refused = login("reviewer").post("/e/local/bulk/tags/", confirm)
    assert refused.status_code == 403 and "only an admin" in refused.content.decode()
    assert protected(tags_indexed, "par") and protected(tags_indexed, "root")
    done = login("admin").post("/e/local/bulk/tags/", confirm)
    assert done.status_code == 302 and not SessionTag.objects.filter(tag=kept).exists()


def test_a_reviewer_cannot_strip_a_keep_tag_through_the_api(kept, tags_indexed, users):  # noqa: F811
    def api(name):
        _, plain = tokens.issue(users[name], "t", days=1, write=True)
        return Client(headers={"Authorization": f"Bearer {plain}"})

    def remove(client):
        return client.delete(
            "/api/v1/e/local/tags/par",
            {"tag": "legal-hold"},
            content_type="application/json",
            headers={"Idempotency-Key": mint_key()},
        )

    refused = remove(api("reviewer"))
    assert refused.status_code == 403 and refused.json()["code"] == "keep_tag_admin_only"
    assert protected(tags_indexed, "par")
    assert remove(api("admin")).json()["count"] == 1
    assert not protected(tags_indexed, "par")


def test_the_run_page_flags_sessions_protected_at_the_previous_run(mock_endpoint, login, users):
    rule = RetentionRule.objects.create(
        **mock_endpoint.scope(),
        name="r",
        query="source:cron",
        age_days=30,
        updated_by=users["admin"],
    )
    earlier = RetentionRun.objects.create(
        rule=rule,
        rule_version=1,
        **mock_endpoint.scope(),
        protected=[{"id": "s1", "why": "keep_tag"}],
    )
    batch = DeletionBatch.objects.create(
        **mock_endpoint.scope(),
        requester=users["admin"],
        requester_name="admin",
        reason="r",
        created_at=timezone.now(),
    )
    for sid in ("s1", "s2"):
        DeletionRequest.objects.create(
            **mock_endpoint.scope(),
            session_id=sid,
            requester=users["admin"],
            requester_name="admin",
            reason="r",
            created_at=timezone.now(),
            batch=batch,
            snapshot={"row": {"id": sid, "source": "cron"}},
        )
    run = RetentionRun.objects.create(
        rule=rule, rule_version=1, **mock_endpoint.scope(), batch_id=batch.pk
    )
    assert run.created_at >= earlier.created_at
    url = reverse("retention_run", kwargs={"endpoint": "local", "run": run.pk})
    page = login("admin2").get(url).content.decode()
    flagged = page.split('id="run-unprotected"')[1].split("</ul>")[0]
    assert 'data-session="s1"' in flagged and "s2" not in flagged
    batch_page = login("admin2").get(reverse("deletion_batch", kwargs={"pk": batch.pk}))
    assert 'id="run-unprotected"' in batch_page.content.decode()


def test_the_migration_holds_existing_keep_tags_by_the_tags_id(transactional_db):
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before = [("retention", "0001_initial"), ("tags", "0001_initial")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    tag = old.get_model("tags", "Tag").objects.create(name="Legal-Hold")
    old_keep = old.get_model("retention", "KeepTag").objects
    old_keep.create(tag_name="legal-hold", added_by_name="ana")  # names match whatever the case
    old_keep.create(tag_name="deleted-tag", added_by_name="ana")  # no tag has it: protected nothing
    try:
        executor = MigrationExecutor(connection)
        executor.migrate([("retention", "0002_keep_tag_by_id")])
        new = executor.loader.project_state([("retention", "0002_keep_tag_by_id")]).apps
        rows = list(new.get_model("retention", "KeepTag").objects.values("tag_id", "added_by_name"))
        assert rows == [{"tag_id": tag.pk, "added_by_name": "ana"}]
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
