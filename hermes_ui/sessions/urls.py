from django.urls import path

from hermes_ui.sessions.views import detail, listing
from hermes_ui.web.routes import session_action

urlpatterns = [
    path("e/<str:endpoint>/sessions/", listing.session_list, name="session_list"),
    path(
        "e/<str:endpoint>/sessions/<path:session_id>/", detail.session_detail, name="session_detail"
    ),
    # The "go to id" box, and the query-string form of the session page.
    path("e/<str:endpoint>/open/", detail.session_open, name="session_detail_q"),
    *session_action("messages", detail.session_messages, "session_messages"),
]
