"""Deletion cases per endpoint and source: listed, opened and approved only by whom the
one rule lets (issue 48): a second admin must be admin on that endpoint."""

import pytest
from django.urls import reverse

from hermes_ui.deletion import batch as batches
from hermes_ui.deletion import request as deletion_request
from hermes_ui.deletion.models import DeletionBatch, DeletionRequest, Status
from tests.deletion import per_endpoint
from tests.deletion.helpers import decide, new_url, refresh
from tests.deletion.per_endpoint import (
    EU_ID,
    PARENT_ID,
    SUB_ID,
    TG_ID,
    TG_TITLE,
    US_ID,
    US_TITLE,
    assert_no_canary,
)

two_fakes, endpoint_people, as_ = (
    per_endpoint.two_fakes,
    per_endpoint.endpoint_people,
    per_endpoint.as_,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def cases(two_fakes, endpoint_people):
    eu, us = two_fakes
    root = endpoint_people["root"]
    return {
        "eu": deletion_request.create(eu, EU_ID, endpoint_people["eu_admin"], "Owner asked")[0],
        "tg": deletion_request.create(eu, TG_ID, root, "Owner asked")[0],
        "us": deletion_request.create(us, US_ID, root, "Owner asked")[0],
    }


def _queue(client) -> str:
    answer = client.get(reverse("deletion_queue"))
    assert answer.status_code == 200
    return answer.content.decode()


def test_the_queue_lists_only_cases_the_person_may_see(cases, as_):
    eu_admin = _queue(as_("eu_admin"))
    assert EU_ID in eu_admin and TG_ID in eu_admin
    assert_no_canary(eu_admin, US_ID, US_TITLE)
    assert_no_canary(_queue(as_("us_admin")), EU_ID, TG_ID)
    limited = _queue(as_("eu_cli_admin"))
    assert EU_ID in limited
    assert_no_canary(limited)
    assert US_ID in _queue(as_("root")) and TG_ID in _queue(as_("root"))


def test_an_admin_of_another_endpoint_cannot_open_or_approve(cases, as_):
    case = cases["eu"]
    other = as_("us_admin")
    assert other.get(reverse("deletion_detail", kwargs={"pk": case.pk})).status_code == 404
    assert decide(other, case.pk).status_code == 404
    assert refresh(case).status == Status.PENDING
    # An admin limited to cli may not see the telegram case at all
    limited = as_("eu_cli_admin")
    assert limited.get(reverse("deletion_detail", kwargs={"pk": cases["tg"].pk})).status_code == 404
    assert decide(limited, cases["tg"].pk).status_code == 404
    # ... while a second admin on that endpoint approves it.
    assert decide(as_("eu_admin2"), case.pk).status_code == 302
    assert refresh(case).status == Status.APPROVED


def test_requesting_a_deletion_needs_the_session_visible(two_fakes, as_):
    limited = as_("eu_cli")
    assert limited.get(new_url(TG_ID, "eu")).status_code == 404
    answer = limited.post(
        reverse("deletion_new", kwargs={"endpoint": "eu"}), {"session": TG_ID, "reason": "x" * 12}
    )
    assert answer.status_code == 404
    assert limited.get(new_url(EU_ID, "eu")).status_code == 200
    assert as_("us_admin").get(new_url(EU_ID, "eu")).status_code == 404


def test_a_batch_shows_only_visible_members_and_needs_an_admin_of_each(
    two_fakes, endpoint_people, as_
):
    eu, us = two_fakes
    mixed = batches.create(eu, [EU_ID, TG_ID], endpoint_people["root"], "Clean-up of tests")
    url = reverse("deletion_batch", kwargs={"pk": mixed.pk})
    page = as_("eu_cli_admin").get(url)
    assert page.status_code == 200
    assert EU_ID in page.content.decode()
    assert_no_canary(page.content.decode(), TG_ID, TG_TITLE)
    refused = as_("eu_cli_admin").post(
        reverse("deletion_batch_decide", kwargs={"pk": mixed.pk}),
        {"decision": "approve", "policy_rule": "test_or_duplicate", "comment": "ok"},
    )
    assert refused.status_code == 403
    assert all(m.status == Status.PENDING for m in mixed.members.all())
    us_batch = batches.create(us, [US_ID], endpoint_people["root"], "Clean-up of tests")
    hidden = reverse("deletion_batch", kwargs={"pk": us_batch.pk})
    assert as_("eu_admin").get(hidden).status_code == 404
    assert as_("root").get(hidden).status_code == 200


def test_a_case_names_no_session_of_a_source_the_reader_may_not_see(
    two_fakes, endpoint_people, as_
):
    eu, _ = two_fakes
    case = deletion_request.create(eu, PARENT_ID, endpoint_people["root"], "Owner asked")[0]
    assert SUB_ID in case.cascade_ids
    url = reverse("deletion_detail", kwargs={"pk": case.pk})
    limited = as_("eu_cli_admin").get(url).content.decode()
    assert PARENT_ID in limited and "a session you can't open" in limited
    assert_no_canary(limited, SUB_ID)
    assert SUB_ID in as_("eu_admin").get(url).content.decode()


def test_a_batch_names_no_delegate_the_reader_may_not_see(two_fakes, endpoint_people, as_):
    eu, _ = two_fakes
    batch = batches.create(eu, [PARENT_ID], endpoint_people["root"], "Clean-up of tests")
    url = reverse("deletion_batch", kwargs={"pk": batch.pk})
    limited = as_("eu_cli_admin").get(url).content.decode()
    assert PARENT_ID in limited and "a session you can't open" in limited
    assert_no_canary(limited, SUB_ID)
    assert SUB_ID in as_("eu_admin").get(url).content.decode()


def test_a_follow_up_of_hidden_leftovers_is_for_who_sees_them(two_fakes, endpoint_people, as_):
    eu, _ = two_fakes
    case = deletion_request.create(eu, PARENT_ID, endpoint_people["root"], "Owner asked")[0]
    DeletionRequest.objects.filter(pk=case.pk).update(
        status=Status.EXECUTED,
        result={"deleted": [{"id": SUB_ID, "kind": "delegate", "state": "still_present"}]},
    )
    url = reverse("deletion_follow_up", kwargs={"pk": case.pk})
    refused = as_("eu_cli_admin").post(url)
    assert refused.status_code == 403
    assert_no_canary(refused.content.decode(), SUB_ID)
    assert not DeletionBatch.objects.exists()
    assert as_("eu_admin").post(url).status_code == 302
    assert DeletionBatch.objects.get().members.get().session_id == SUB_ID


def test_an_admin_who_cannot_see_every_removed_session_may_not_decide(
    two_fakes, endpoint_people, as_
):
    eu, _ = two_fakes
    # The parent (cli) takes a delegate of another source with it.
    case = deletion_request.create(eu, PARENT_ID, endpoint_people["root"], "Owner asked")[0]
    assert SUB_ID in case.cascade_ids
    refused = decide(as_("eu_cli_admin"), case.pk)
    assert refused.status_code == 403
    assert "cannot open" in refused.content.decode()
    assert_no_canary(refused.content.decode(), SUB_ID)
    assert refresh(case).status == Status.PENDING
    assert decide(as_("eu_admin"), case.pk).status_code == 302
    assert refresh(case).status == Status.APPROVED
