from django.apps import AppConfig


class ReviewConfig(AppConfig):
    """Review queues: rubric labels on sessions and messages, notes, corrections, datasets."""

    name = "hermes_ui.review"
    label = "review"
    verbose_name = "Review queues"
