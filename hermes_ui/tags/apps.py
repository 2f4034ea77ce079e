from django.apps import AppConfig


class TagsConfig(AppConfig):
    """Tags on sessions, from a managed list with colours."""

    name = "hermes_ui.tags"
    label = "tags"
    verbose_name = "Tags"
