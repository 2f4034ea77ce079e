from django.urls import path

from hermes_ui.live import notice_views, views

urlpatterns = [
    path("e/<str:endpoint>/live/", views.live_stream, name="live_stream"),
    path("live/deletions/", notice_views.deletion_notices, name="live_deletions"),
    path(
        "e/<str:endpoint>/review/<int:queue_id>/live/",
        notice_views.review_notices,
        name="live_review",
    ),
]
