from django.apps import AppConfig


class IndexConfig(AppConfig):
    name = "hermes_ui.index"
    label = "index"
    verbose_name = "Session index"
