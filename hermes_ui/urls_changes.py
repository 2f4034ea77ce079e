"""Routes of the changes feature, included before the catch-all session route."""

from django.urls import path

from hermes_ui.views import audit_log, reconcile, session_create, session_fork, session_patch

urlpatterns = [
    path("e/<str:endpoint>/new/", session_create.session_create, name="session_create"),
    path(
        "e/<str:endpoint>/sessions/<path:session_id>/edit/",
        session_patch.session_edit,
        name="session_edit",
    ),
    path(
        "e/<str:endpoint>/sessions/<path:session_id>/fork/",
        session_fork.session_fork,
        name="session_fork",
    ),
    path(
        "e/<str:endpoint>/changes/<int:event_id>/", reconcile.change_outcome, name="change_outcome"
    ),
    path(
        "e/<str:endpoint>/changes/<int:event_id>/check/",
        reconcile.change_check,
        name="change_check",
    ),
    path("audit/", audit_log.audit_log, name="audit_log"),
]
