from django.apps import AppConfig


class ExportConfig(AppConfig):
    """Downloads of a session or its lineage: JSON, Markdown, HTML; optionally redacted."""

    name = "hermes_ui.export"
    label = "export"
    verbose_name = "Export"

    def ready(self):
        # Its region of the session page (web.session_regions places it).
        from hermes_ui.web import session_regions

        session_regions.register(
            "export", "export/_session_export.html", place="side", order=70, key="e"
        )
