"""The lineage page, and the eraser of its cached drawings."""

from django.apps import AppConfig


class LineageConfig(AppConfig):
    name = "hermes_ui.lineage"
    label = "lineage"
    verbose_name = "Lineage"

    def ready(self):
        from hermes_ui.lineage import erase
        from hermes_ui.platform import erasers

        erasers.register("drawings", "cached lineage drawings", erase.erase_drawings)
        # Its region of the session page (web.session_regions places it).
        from hermes_ui.web import session_regions

        session_regions.register(
            "lineage", "lineage/_session_panel.html", place="side", order=50, key="l"
        )
