"""URLs of the review feature: queues and reviewing (per endpoint), rubrics (global)."""

from django.urls import path

from hermes_ui.review.views import (
    adding,
    corrections,
    dataset,
    mentions,
    notes,
    queues,
    reviewing,
    rubrics,
    rules,
)
from hermes_ui.web.routes import session_action

Q = "e/<str:endpoint>/review/<int:queue_id>"

urlpatterns: list = [
    # -- queues, reviewing and rubrics (review core) -------------------------------------
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
    # -- notes, mentions and corrections (review-notes) ----------------------------------
    *session_action("notes", notes.session_notes, "review_notes"),
    path("e/<str:endpoint>/note-delete/<int:pk>/", notes.note_delete, name="review_note_delete"),
    *session_action("correction", corrections.message_correction, "review_correction"),
    path("mentions/", mentions.mention_list, name="mentions"),
    path("mentions/read/", mentions.mentions_read, name="mentions_read"),
    # Rules and the dataset export (review-data).
    path("e/<str:endpoint>/review/<int:queue>/rules/", rules.queue_rules, name="review_rules"),
    path(
        "e/<str:endpoint>/review/<int:queue>/dataset/", dataset.queue_dataset, name="review_dataset"
    ),
    path("e/<str:endpoint>/review/dataset/", dataset.search_dataset, name="review_dataset_search"),
]
