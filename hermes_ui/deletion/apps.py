from django.apps import AppConfig


class DeletionConfig(AppConfig):
    name = "hermes_ui.deletion"
    label = "deletion"
    verbose_name = "Deletion requests"
