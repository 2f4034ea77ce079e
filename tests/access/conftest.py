"""Shared fixtures for the access tests: pat, a person with a password, on eu and us."""

import pytest

from tests.conftest import PASSWORD


@pytest.fixture
def pat(django_user_model, eu_us):
    return django_user_model.objects.create_user("pat", password=PASSWORD)
