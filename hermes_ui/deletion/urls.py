from django.urls import path

from hermes_ui.deletion.views import actions, batch, case, queue, request

urlpatterns = [
    path("deletions/", queue.deletion_queue, name="deletion_queue"),
    path("deletions/<int:pk>/", case.deletion_detail, name="deletion_detail"),
    path("deletions/<int:pk>/decide/", actions.deletion_decide, name="deletion_decide"),
    path("deletions/<int:pk>/execute/", actions.deletion_execute, name="deletion_execute"),
    path("deletions/<int:pk>/check/", actions.deletion_check, name="deletion_check"),
    path("deletions/<int:pk>/withdraw/", actions.deletion_withdraw, name="deletion_withdraw"),
    path("deletions/<int:pk>/follow-up/", actions.deletion_follow_up, name="deletion_follow_up"),
    path("deletions/batch/<int:pk>/", batch.deletion_batch, name="deletion_batch"),
    path(
        "deletions/batch/<int:pk>/decide/",
        batch.deletion_batch_decide,
        name="deletion_batch_decide",
    ),
    path(
        "deletions/batch/<int:pk>/execute/",
        batch.deletion_batch_execute,
        name="deletion_batch_execute",
    ),
    path("e/<str:endpoint>/deletions/new/", request.deletion_new, name="deletion_new"),
]
