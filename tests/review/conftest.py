"""The one-rule tests' two endpoints and people (``access_world``)."""

from tests.review.access_world import review_world  # noqa: F401 (fixture)
