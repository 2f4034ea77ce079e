"""Routes of the deletion feature, included before the catch-all session route."""

from django.urls import path

from hermes_ui.views import deletion_actions, deletion_case, deletion_queue, deletion_request

urlpatterns = [
    path("deletions/", deletion_queue.deletion_queue, name="deletion_queue"),
    path("deletions/<int:pk>/", deletion_case.deletion_detail, name="deletion_detail"),
    path("deletions/<int:pk>/decide/", deletion_actions.deletion_decide, name="deletion_decide"),
    path("deletions/<int:pk>/execute/", deletion_actions.deletion_execute, name="deletion_execute"),
    path("deletions/<int:pk>/check/", deletion_actions.deletion_check, name="deletion_check"),
    path(
        "deletions/<int:pk>/withdraw/", deletion_actions.deletion_withdraw, name="deletion_withdraw"
    ),
    path("e/<str:endpoint>/deletions/new/", deletion_request.deletion_new, name="deletion_new"),
]
