from django.apps import AppConfig


class WatermarksConfig(AppConfig):
    """New since I looked: a per-user read watermark per session."""

    name = "hermes_ui.watermarks"
    label = "watermarks"
    verbose_name = "New since I looked"
