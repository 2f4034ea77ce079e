"""The endpoints page per person (issue 48): only the endpoints they may see are listed,
probed or named."""

import pytest

from hermes_ui.endpoint_status.models import EndpointProbe
from tests.deletion import per_endpoint

two_fakes, endpoint_people, as_ = (
    per_endpoint.two_fakes,
    per_endpoint.endpoint_people,
    per_endpoint.as_,
)
pytestmark = pytest.mark.django_db


def test_only_visible_endpoints_are_listed(two_fakes, as_):
    page = as_("eu_cli").get("/endpoints/").content.decode()
    assert 'id="endpoint-eu"' in page
    assert 'id="endpoint-us"' not in page and "us.test" not in page
    page = as_("root").get("/endpoints/").content.decode()
    assert 'id="endpoint-eu"' in page and 'id="endpoint-us"' in page


def test_probe_now_asks_only_visible_endpoints(two_fakes, as_):
    answer = as_("us_admin").post("/endpoints/probe/")
    assert answer.status_code == 302
    assert set(EndpointProbe.objects.values_list("endpoint", flat=True)) == {"us"}
