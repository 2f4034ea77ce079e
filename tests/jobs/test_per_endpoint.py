"""Job pages per endpoint (issue 48): the owner and the admins of the job's endpoint read
it; an admin of another endpoint, or of some sources only, learns nothing (404)."""

import pytest

from hermes_ui.background.jobs.models import Job, JobState
from tests.deletion import per_endpoint
from tests.deletion.per_endpoint import EU_ID, US_ID, assert_no_canary

two_fakes, endpoint_people, as_ = (
    per_endpoint.two_fakes,
    per_endpoint.endpoint_people,
    per_endpoint.as_,
)
pytestmark = pytest.mark.django_db


def _job(people, endpoint: str, owner: str, session_id: str, kind="bulk_close") -> str:
    job = Job.objects.create(
        kind=kind,
        endpoint=endpoint,
        user=people[owner],
        total=1,
        done=1,
        state=JobState.RUNNING,
        result={"rows": [{"session_id": session_id, "verdict": "closed"}]},
    )
    return f"/jobs/{job.pk}/"


def test_the_owner_and_admins_of_that_endpoint_read_a_job(two_fakes, endpoint_people, as_):
    us_job = _job(endpoint_people, "us", "us_admin", US_ID)
    for name in ("eu_admin", "eu_support", "eu_cli_admin"):
        answer = as_(name).get(us_job)
        assert answer.status_code == 404, name
        assert_no_canary(answer.content.decode(), US_ID)
    assert US_ID in as_("us_admin").get(us_job).content.decode()
    assert US_ID in as_("root").get(us_job).content.decode()
    eu_job = _job(endpoint_people, "eu", "eu_cli", EU_ID)
    assert as_("eu_cli").get(eu_job).status_code == 200  # their own
    assert as_("eu_admin").get(eu_job).status_code == 200  # admin there
    assert as_("eu_cli_admin").get(eu_job).status_code == 404  # admin of some sources only
    assert as_("eu_support").get(eu_job).status_code == 404  # not theirs, not admin


def test_an_instance_level_job_is_for_its_owner_and_admins_on_every_endpoint(
    two_fakes, endpoint_people, as_
):
    job = _job(endpoint_people, "", "eu_admin", "none", kind="token_sweep")
    assert as_("eu_admin").get(job).status_code == 200
    assert as_("us_admin").get(job).status_code == 404
    assert as_("root").get(job).status_code == 200
