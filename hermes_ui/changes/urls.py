from django.urls import path

from hermes_ui.changes.views import create, flags, fork, outcome, rename
from hermes_ui.web.routes import session_action

urlpatterns = [
    path("e/<str:endpoint>/new/", create.session_create, name="session_create"),
    *session_action("rename", rename.session_rename, "session_rename"),
    *session_action("fork", fork.session_fork, "session_fork"),
    *session_action("flag", flags.session_flag, "session_flag"),
    path("e/<str:endpoint>/changes/<int:event_id>/", outcome.change_outcome, name="change_outcome"),
    path(
        "e/<str:endpoint>/changes/<int:event_id>/check/", outcome.change_check, name="change_check"
    ),
]
