"""The lineage page."""

from django.apps import AppConfig


class LineageConfig(AppConfig):
    name = "hermes_ui.lineage"
    label = "lineage"
    verbose_name = "Lineage"

    def ready(self):
        # Its region of the session page (web.session_regions places it).
        from hermes_ui.web import session_regions

        session_regions.register(
            "lineage", "lineage/_session_panel.html", place="side", order=50, key="l"
        )
