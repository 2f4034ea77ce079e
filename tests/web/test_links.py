"""Session URLs are built from memoised patterns; the memo follows the URLconf."""

from django.urls import include, path

from hermes_ui.web.links import session_url

urlpatterns = [path("under/", include("hermes_ui.urls"))]


def test_session_urls_percent_encode_the_id_into_the_memoised_pattern():
    assert session_url("local", "a/b c") == "/e/local/sessions/a%2Fb%20c/"
    assert session_url("local", "x", "session_chat") == "/e/local/chat/x/"
    assert session_url("other", "x") == "/e/other/sessions/x/"


def test_session_urls_follow_a_changed_urlconf(settings):
    before = session_url("local", "abc")
    settings.ROOT_URLCONF = __name__
    assert session_url("local", "abc") == "/under" + before
