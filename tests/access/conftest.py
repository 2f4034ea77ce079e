"""Two endpoints, as in test_rules.py: eu and us, each its own Hermes (never called here)."""

import pytest

from hermes_ui.platform.endpoints import Endpoint
from tests.conftest import TEST_KEY


@pytest.fixture
def eu_us(settings):
    eu = Endpoint("eu", "http://eu.test", TEST_KEY)
    us = Endpoint("us", "http://us.test", TEST_KEY)
    settings.HERMES_ENDPOINTS = {"eu": eu, "us": us}
    settings.HERMES_ENDPOINT_ID = "eu"
    return eu, us
