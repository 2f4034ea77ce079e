from django.apps import AppConfig


class LiveConfig(AppConfig):
    """Live updates: the lists and the session page learn when Hermes changes."""

    name = "hermes_ui.live"
    label = "live"
    verbose_name = "Live updates"
