from django.apps import AppConfig


class ExportConfig(AppConfig):
    """Downloads of a session or its lineage: JSON, Markdown, HTML; optionally redacted."""

    name = "hermes_ui.export"
    label = "export"
    verbose_name = "Export"
