"""Bulk close as a background job: the confirming POST answers at once.

Each session still goes through ``close.close_each`` (its own derived key,
idempotency record and audit event), so submitting the same form again,
after the job ended or after the process running it died, replays every
outcome already recorded and closes only the rest.
"""

from __future__ import annotations

from dataclasses import asdict

from django.urls import reverse

from hermes_ui.bulk.close import close_each
from hermes_ui.digests import json_digest
from hermes_ui.endpoints import Endpoint
from hermes_ui.jobs import runner
from hermes_ui.jobs.kinds import Kind, register
from hermes_ui.jobs.models import Job

KIND = register(
    Kind(
        "bulk_close",
        "Closing sessions",
        results_template="bulk/_close_results.html",
        back_label="Back to the index",
        interrupted=(
            "Submitting the same close form again replays the outcome of every session "
            "already sent and closes the rest: nothing is sent to Hermes twice."
        ),
    )
)


def key_for(endpoint: Endpoint, ids: list[str], end_reason: str, form_key: str) -> str:
    """The same form (key, sessions, reason) on the same endpoint is the same job."""
    return json_digest([endpoint.scope(), form_key, ids, end_reason], 40)


def start(endpoint: Endpoint, user, ids: list[str], end_reason: str, form_key: str) -> Job:
    def work(progress):
        for row in close_each(endpoint, user, ids, end_reason, form_key):
            progress.step(asdict(row))

    job, _ = runner.submit(
        KIND,
        user=user,
        work=work,
        scope=endpoint.scope(),
        key=key_for(endpoint, ids, end_reason, form_key),
        total=len(ids),
        result={"back": reverse("index_list", kwargs={"endpoint": endpoint.id})},
    )
    return job
