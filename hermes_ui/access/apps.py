from django.apps import AppConfig


class AccessConfig(AppConfig):
    name = "hermes_ui.access"
    label = "access"
    verbose_name = "Access"
