"""The lineage page."""

from django.apps import AppConfig


class LineageConfig(AppConfig):
    name = "hermes_ui.lineage"
    label = "lineage"
    verbose_name = "Lineage"
