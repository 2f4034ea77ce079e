"""The erasers' table: no model keeps session data that a deletion would not erase.

The rule: a model may hold session ids in a string field named ``*_id``
(Hermes session ids are strings; the dashboard's own keys are integers and
foreign keys: ``session_id``, ``target_session_id``, ``parent_id``,
``first_id``...) and in **every** JSON or text field (an event's ids, a task's
stored arguments, a delivery's signed body: no field name reveals them). Each
model with such a field is covered by an eraser (``models=`` of its line in
``hermes_ui/deletion/erasers.py``), listed in ``KEEPS_IDS_ONLY`` with the
reason it may outlive the session, or each such field is listed in
``NO_SESSION_IDS`` with the reason it cannot hold one.
"""

import pytest
from django.apps import apps
from django.db import models

from hermes_ui.deletion import erasers, erasure
from hermes_ui.deletion.models import DeletionRequest
from hermes_ui.platform import erasers as helpers
from hermes_ui.platform.endpoints import Endpoint

# Records that keep ids, codes, counts and fingerprints, never a session's
# content: they are the dashboard's account of what was done, so they outlive
# the session. Everything else that names a session is erased.
KEEPS_IDS_ONLY = {
    "audit.AuditEvent": "the audit trail: who did what to which id; ``redact.evidence`` "
    "lets no title or message through, and it must show that the deletion happened",
    "deletion.DeletionRequest": "the case file of the deletion itself: ids, counts, digests "
    "and the reviewers' own words; its snapshot is a projection, never the content",
    "deletion.DeletionBatch": "a bulk deletion's case file: ids and why-codes of what it skipped",
    "jobs.Job": "a background job's record of its work: per-session verdicts and codes (what "
    "the audit trail's evidence holds too), counts and links, never transcript text",
    "verification.VerificationReport": "the integration check's report: ids of the scratch "
    "sessions the check itself created, keys, statuses and digests, never a title",
    "observed.Observation": "what a release was seen to do (a DELETE that did not cascade): "
    "the ids of the delegates that showed it, with the case number, as the audit trail keeps",
    # Not session ids at all, only fields the rule's name pattern catches:
    "socialaccount.SocialApp": "the OpenID provider's configuration: provider and client ids",
    "api_tokens.ApiToken": "a personal API token: its key id names the token, not a session",
    "scim.ScimUser": "the identity provider's ids of a person (SCIM id and externalId)",
    "scim.ScimGroup": "the identity provider's ids of a group (SCIM id and externalId)",
}

# JSON and text fields that cannot hold a session id, and why.
NO_SESSION_IDS = {
    "sessions.Session.session_data": "a sign-in's own data: a webhook secret shown once, the "
    "single sign-on logout address",
    "axes.AccessAttempt.get_data": "a failed login's query string (the login page's)",
    "axes.AccessAttempt.post_data": "a failed login's form, without the password",
    "index.IndexSyncState.last_report": "a sync's counts and timings",
    "index.IndexSyncState.progress": "a running sync's counts",
    "endpoint_status.EndpointProbe.features": "what an endpoint's capabilities report",
    "endpoint_status.EndpointProbe.operations": "which session routes an endpoint answers",
    "review.Rubric.description": "an admin's description of a rubric",
    "review.RubricVersion.fields": "a rubric's field definitions",
    "socialaccount.SocialAccount.extra_data": "the identity provider's claims about a person",
    "socialaccount.SocialToken.token": "the identity provider's token",
    "socialaccount.SocialToken.token_secret": "the identity provider's token secret",
    "webhooks.Webhook.events": "the event names a webhook subscribes to",
    "access.Grant.sources": "the Hermes source names a grant is limited to (cron, telegram)",
    "django_tasks_database.DBTaskResult.task_path": "the task's dotted path",
    "django_tasks_database.DBTaskResult.worker_ids": "the ids of the workers that ran it",
    "django_tasks_database.DBTaskResult.exception_class_path": "an exception's dotted path",
    "django_tasks_database.DBTaskResult.traceback": "a failed task's stack",
}


def id_fields(model) -> list[str]:
    """The fields by which a model may name a session (see the rule above)."""
    return [
        field.name
        for field in model._meta.concrete_fields
        if (isinstance(field, models.CharField) and field.name.endswith("_id"))
        or (
            isinstance(field, models.JSONField | models.TextField)
            and f"{model._meta.label}.{field.name}" not in NO_SESSION_IDS
        )
    ]


def covered_by(table) -> set:
    return {apps.get_model(label) for eraser in table for label in eraser.models}


def uncovered(table) -> list[str]:
    """One line per model that holds session ids with no eraser covering it and no reason."""
    covered = covered_by(table)
    return [
        f"{model._meta.label} holds session ids ({', '.join(fields)}) but no eraser covers "
        f"it: add one to hermes_ui/deletion/erasers.py with models=({model._meta.label!r},), "
        "or list it in KEEPS_IDS_ONLY with the reason it may stay"
        for model in apps.get_models()
        if (fields := id_fields(model))
        and model not in covered
        and model._meta.label not in KEEPS_IDS_ONLY
    ]


def test_every_model_holding_session_ids_is_erased_or_kept_for_a_stated_reason():
    missing = uncovered(erasers.all_erasers())
    assert not missing, "\n".join(missing)


def test_the_lists_name_installed_models_that_hold_ids_and_no_eraser_covers():
    installed = {model._meta.label: model for model in apps.get_models()}
    covered = covered_by(erasers.all_erasers())
    fields = {f"{m._meta.label}.{f.name}" for m in installed.values() for f in m._meta.fields}
    assert set(NO_SESSION_IDS) <= fields, set(NO_SESSION_IDS) - fields
    for label in KEEPS_IDS_ONLY:
        assert label in installed, f"{label} is in KEEPS_IDS_ONLY but not installed"
        assert id_fields(installed[label]), f"{label} holds no session ids: drop it from the list"
        assert installed[label] not in covered, f"{label} is both erased and kept"
    assert covered <= set(installed.values())


def test_a_model_whose_eraser_is_not_in_the_table_is_named():
    without = [eraser for eraser in erasers.all_erasers() if eraser.name != "verdicts"]
    missing = uncovered(without)
    assert len(missing) == 1 and missing[0].startswith("compare.Verdict holds session ids")
    assert "(first_id, second_id, preferred_id, reason)" in missing[0]


def test_the_scan_finds_ids_in_json_and_text_fields_whatever_their_names():
    """Before webhook deliveries and task records had erasers, the scan missed them."""
    covered = [
        e for e in erasers.all_erasers() if e.name not in ("webhook_deliveries", "task_records")
    ]
    missing = "\n".join(uncovered(covered))
    assert "webhooks.Delivery holds session ids (body)" in missing
    assert "django_tasks_database.DBTaskResult holds session ids (args_kwargs, return_value)" in (
        missing
    )


def test_the_result_page_lists_the_kinds_in_the_tables_order():
    kinds = erasers.kinds()
    assert list(kinds)[:2] == ["transcripts", "index_rows"]
    assert kinds["turn_events"] == "chat turn events" and kinds["verdicts"] == "review verdicts"
    case = DeletionRequest(result={"erased": {"turns": 2, "drawings": 1}})
    assert [label for label, _ in case.erased] == list(kinds.values())
    assert dict(case.erased)["chat turns"] == 2 and dict(case.erased)["review verdicts"] == 0


@pytest.fixture
def only(monkeypatch):
    """Replace the table for one test: ``only(eraser, ...)``."""

    def install(*table):
        monkeypatch.setattr(erasers, "ERASERS", tuple(erasers.Eraser(*a, **k) for a, k in table))

    return install


def test_erasure_runs_each_eraser_then_its_steps_after_the_transaction(only, db):
    ep = Endpoint("local", "http://hermes.test", "key")
    calls = []

    def rows(scope, ids):
        calls.append(("rows", scope.id, ids))
        helpers.after_commit(lambda: calls.append("step") or {"cached": 3})
        return {"rows": 2}

    def cache(scope, ids):
        calls.append(("cache", ids))
        return {}

    only(
        (("rows", "rows", rows), {"also": {"cached": "cached things"}, "held": lambda s, i: {}}),
        (("views", "cached views", cache), {"related": True}),
    )
    counts = erasure.erase(ep, ["b", "a", "b"], related=["tip"])
    assert counts == {"rows": 2, "cached": 3, "views": 0}
    # Every eraser runs before any step: the steps wait for the transaction.
    assert calls == [("rows", "local", ["a", "b"]), ("cache", ["a", "b", "tip"]), "step"]
    assert erasure.erase(ep, []) == {"rows": 0, "cached": 0, "views": 0}


def test_an_eraser_counting_a_kind_it_did_not_declare_fails(only, db):
    only((("rows", "rows", lambda scope, ids: {"other": 1}), {}))
    with pytest.raises(ValueError, match="'rows' counted 'other'"):
        erasure.erase(Endpoint("local", "http://hermes.test", "key"), ["a"])


def test_two_erasers_cannot_count_the_same_kind(only):
    only(
        (("rows", "rows", lambda scope, ids: {}), {}),
        (("more", "more", lambda scope, ids: {}), {"also": {"rows": "rows again"}}),
    )
    with pytest.raises(ValueError, match="as 'rows' does"):
        erasers.kinds()


def test_after_commit_outside_an_erasure_is_refused():
    with pytest.raises(RuntimeError):
        helpers.after_commit(dict)
