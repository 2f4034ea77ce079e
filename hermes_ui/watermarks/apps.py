from django.apps import AppConfig


class WatermarksConfig(AppConfig):
    """New since I looked: a per-user read watermark per session."""

    name = "hermes_ui.watermarks"
    label = "watermarks"
    verbose_name = "New since I looked"

    def ready(self):
        from hermes_ui.platform import erasers
        from hermes_ui.search import badges, facets
        from hermes_ui.watermarks import erase, looked, marks
        from hermes_ui.watermarks.models import Watermark
        from hermes_ui.web.signals import session_viewed

        session_viewed.connect(looked.moved, dispatch_uid="watermarks.moved")
        facets.register("new", parse=marks.parse, sessions=marks.sessions, help=marks.HELP)
        badges.register("watermarks", marks.badges, takes_rows=True)
        erasers.register(
            "watermarks", "read watermarks", erase.erase, models=[Watermark], held=erase.held
        )
