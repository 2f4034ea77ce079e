from django.apps import AppConfig


class HermesUiConfig(AppConfig):
    name = "hermes_ui"
    verbose_name = "Hermes UI"
