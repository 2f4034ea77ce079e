"""A deletion request belongs to the Hermes it was made against, not to the endpoint id."""

import pytest

from hermes_ui.deletion.models import DeletionRequest, Status
from hermes_ui.platform.endpoints import Endpoint
from tests.conftest import TEST_KEY
from tests.deletion.helpers import decide, execute, page, refresh, request_deletion

pytestmark = pytest.mark.django_db


def test_a_deletion_request_is_never_executed_against_another_server(
    login, fake_hermes, clock, settings
):
    case = request_deletion(login("support"), "fx_del_parent")
    assert case.endpoint_fp == settings.HERMES_ENDPOINTS["local"].fingerprint
    decide(login("admin"), case.pk)
    assert refresh(case).status == Status.APPROVED

    # The id now names another Hermes (the fake answers it just the same).
    settings.HERMES_ENDPOINTS = {"local": Endpoint("local", "http://moved.test", TEST_KEY)}
    answer = execute(login("admin2"), case.pk)
    assert answer.status_code == 409
    assert "no longer points at the Hermes this request was made against" in (
        answer.content.decode()
    )
    assert [call for call in fake_hermes.calls if call[0] == "DELETE"] == []
    assert refresh(case).status == Status.APPROVED
    # Its page still shows the record, without reading the other server.
    before = len(fake_hermes.calls)
    assert "fx_del_parent" in page(login("admin"), case.pk)
    assert len(fake_hermes.calls) == before
    # A request for the same session on the new server is a new case.
    again = request_deletion(login("support"), "fx_del_parent")
    assert again.pk != case.pk and DeletionRequest.objects.count() == 2
