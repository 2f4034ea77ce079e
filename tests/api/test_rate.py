"""The API's rate limit counts a person, not a token: minting more tokens buys nothing."""

import pytest
from django.core.cache import cache

pytestmark = pytest.mark.django_db


def test_two_tokens_of_one_person_share_the_budget_and_others_keep_theirs(bearer, settings):
    settings.HERMES_UI_API_RATE = 4
    cache.clear()  # the counts of earlier tests' users (their ids are reused)
    first, second, other = bearer("support"), bearer("support"), bearer("reviewer")
    assert [first.get("/api/v1/endpoints").status_code for _ in range(2)] == [200, 200]
    assert [second.get("/api/v1/endpoints").status_code for _ in range(2)] == [200, 200]
    for client in (first, second):
        limited = client.get("/api/v1/endpoints")
        assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
        assert 1 <= int(limited["Retry-After"]) <= 61
    assert other.get("/api/v1/endpoints").status_code == 200  # another person's budget
