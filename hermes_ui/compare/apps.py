from django.apps import AppConfig


class CompareConfig(AppConfig):
    """Compare two branches side by side; record which one a reviewer prefers."""

    name = "hermes_ui.compare"
    label = "compare"
    verbose_name = "Compare and review"
