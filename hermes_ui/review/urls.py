"""URLs of the review feature."""

from django.urls import path

from hermes_ui.review.views import corrections, dataset, mentions, notes, rules
from hermes_ui.web.routes import session_action

urlpatterns: list = [
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
