"""The audit trail per endpoint (issue 48): an admin reads the entries of endpoints where
they are admin (of the sessions of their sources), their own instance-level entries, and
nothing else, on the page, in its filter and through the API."""

import pytest

from hermes_ui.api_tokens import tokens
from hermes_ui.audit import trail
from tests.deletion import per_endpoint
from tests.deletion.per_endpoint import EU_ID, TG_ID, US_ID, assert_no_canary

two_fakes, endpoint_people, as_ = (
    per_endpoint.two_fakes,
    per_endpoint.endpoint_people,
    per_endpoint.as_,
)
pytestmark = pytest.mark.django_db

ROOT_ONLY = "root-only-canary-cap"


@pytest.fixture
def entries(two_fakes, endpoint_people):
    root = endpoint_people["root"]
    for endpoint, session_id in [("eu", EU_ID), ("eu", TG_ID), ("us", US_ID)]:
        trail.record(
            root,
            capability="session_rename",
            endpoint=endpoint,
            session_id=session_id,
            outcome="success",
            evidence={"old": "x"},
        )
    trail.record(root, capability=ROOT_ONLY, endpoint="", outcome="success")
    trail.record(
        endpoint_people["eu_admin"], capability="own_sign_in", endpoint="", outcome="success"
    )


def _page(client, **query) -> str:
    answer = client.get("/audit/", query)
    assert answer.status_code == 200
    return answer.content.decode()


def test_an_endpoint_admin_reads_their_endpoint_and_their_own_entries(entries, as_):
    page = _page(as_("eu_admin"))
    assert EU_ID in page and TG_ID in page and "own_sign_in" in page
    assert_no_canary(page, US_ID, ROOT_ONLY, 'value="us"')
    # filtering for a hidden endpoint or session finds nothing
    assert_no_canary(_page(as_("eu_admin"), endpoint="us"), US_ID)
    assert "No events match." in _page(as_("eu_admin"), session=US_ID)
    root = _page(as_("root"))
    assert US_ID in root and ROOT_ONLY in root and "own_sign_in" in root


def test_a_source_limited_admin_reads_only_their_sources_sessions(entries, as_):
    page = _page(as_("eu_cli_admin"))
    assert EU_ID in page
    assert_no_canary(page, TG_ID, US_ID, ROOT_ONLY, "own_sign_in")


def test_the_api_answers_the_same(entries, endpoint_people):
    _, raw = tokens.issue(endpoint_people["us_admin"], "audit reader")
    from django.test import Client

    answer = Client().get("/api/v1/audit", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert answer.status_code == 200
    found = {(e["endpoint"], e["session_id"], e["capability"]) for e in answer.json()["data"]}
    assert ("us", US_ID, "session_rename") in found
    assert all(endpoint in ("us", "") for endpoint, _, _ in found)
    assert all(cap != ROOT_ONLY for _, _, cap in found)
