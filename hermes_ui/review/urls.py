"""URLs of the review feature."""

from django.urls import path

from hermes_ui.review.views import dataset, rules

urlpatterns: list = [
    # Rules and the dataset export (review-data).
    path("e/<str:endpoint>/review/<int:queue>/rules/", rules.queue_rules, name="review_rules"),
    path(
        "e/<str:endpoint>/review/<int:queue>/dataset/", dataset.queue_dataset, name="review_dataset"
    ),
    path("e/<str:endpoint>/review/dataset/", dataset.search_dataset, name="review_dataset_search"),
]
