"""The lineage page, and the eraser of its cached drawings."""

from django.apps import AppConfig


class LineagePageConfig(AppConfig):
    name = "hermes_ui.lineage_page"
    label = "lineage_page"
    verbose_name = "Lineage page"

    def ready(self):
        from hermes_ui.lineage_page import erase
        from hermes_ui.platform import erasers

        erasers.register("drawings", "cached lineage drawings", erase.erase_drawings)
