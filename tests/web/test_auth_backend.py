"""The signed-in user of each request, loaded with SQL compiled once (web.auth_backend)."""

from django.contrib.auth import SESSION_KEY
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.conftest import PASSWORD


def test_a_password_sign_in_stays_signed_in_on_the_next_page(users):
    client = Client()
    answer = client.post("/accounts/login/", {"username": "support", "password": PASSWORD})
    assert answer.status_code == 302 and SESSION_KEY in client.session
    assert client.session["_auth_user_backend"] == "hermes_ui.web.auth_backend.ModelBackend"
    with CaptureQueriesContext(connection) as seen:
        assert client.get("/mentions/").status_code == 200
    # The session came from its cache; the user from the compiled query.
    assert not [q for q in seen.captured_queries if "django_session" in q["sql"]]
    assert len([q for q in seen.captured_queries if 'FROM "auth_user"' in q["sql"]]) == 1


def test_a_deactivated_or_deleted_user_is_signed_out_at_the_next_page(users, login):
    client = login("support")
    assert client.get("/mentions/").status_code == 200
    users["support"].is_active = False
    users["support"].save()
    assert client.get("/mentions/").status_code == 302
    other = login("reviewer")
    users["reviewer"].delete()
    answer = other.get("/mentions/")
    assert answer.status_code == 302 and "/accounts/login/" in answer["Location"]


def test_logging_out_removes_the_session_row_and_its_cached_copy(users):
    from django.contrib.sessions.backends.cached_db import KEY_PREFIX
    from django.contrib.sessions.models import Session
    from django.core.cache import caches

    client = Client()
    client.post("/accounts/login/", {"username": "support", "password": PASSWORD})
    key = client.cookies["sessionid"].value
    assert client.get("/mentions/").status_code == 200
    assert Session.objects.filter(session_key=key).exists()
    assert caches["sessions"].get(KEY_PREFIX + key) is not None
    client.post("/accounts/logout/")
    assert not Session.objects.filter(session_key=key).exists()
    assert caches["sessions"].get(KEY_PREFIX + key) is None
    assert client.get("/mentions/").status_code == 302
