"""URLs of the review feature: queues and reviewing (per endpoint), rubrics (global)."""

from django.urls import path

from hermes_ui.review.views import adding, queues, reviewing, rubrics
from hermes_ui.web.routes import session_action

Q = "e/<str:endpoint>/review/<int:queue_id>"

urlpatterns = [
    path("e/<str:endpoint>/review/", queues.queue_list, name="review_queues"),
    path("e/<str:endpoint>/review/bulk-add/", adding.review_bulk_add, name="review_bulk_add"),
    path(f"{Q}/", queues.queue_detail, name="review_queue"),
    path(f"{Q}/next/", reviewing.review_next, name="review_next"),
    path(f"{Q}/items/<int:item_id>/", reviewing.review_item, name="review_item"),
    path(
        f"{Q}/items/<int:item_id>/authoritative/",
        reviewing.review_authoritative,
        name="review_authoritative",
    ),
    *session_action("review-add", adding.review_add, "review_add"),
    path("review/rubrics/", rubrics.rubric_list, name="review_rubrics"),
    path("review/rubrics/new/", rubrics.rubric_new, name="review_rubric_new"),
    path("review/rubrics/<int:rubric_id>/", rubrics.rubric_edit, name="review_rubric"),
]
