from django.apps import AppConfig


class WatermarksConfig(AppConfig):
    """New since I looked: a per-user read watermark per session."""

    name = "hermes_ui.watermarks"
    label = "watermarks"
    verbose_name = "New since I looked"

    def ready(self):
        from hermes_ui.watermarks import looked
        from hermes_ui.web.signals import session_viewed

        session_viewed.connect(looked.moved, dispatch_uid="watermarks.moved")
