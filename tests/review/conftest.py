"""The one-rule tests' two endpoints and people (``access_world``)."""

from tests.review.access_world import world  # noqa: F401 (fixture)
