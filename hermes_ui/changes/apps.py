from django.apps import AppConfig


class ChangesConfig(AppConfig):
    """Rename and close, create, fork, and the outcome of each change."""

    name = "hermes_ui.changes"
    label = "changes"
    verbose_name = "Changes"
