"""The dashboard's own index of Hermes sessions, and its memory of forks it made."""

from django.apps import AppConfig


class IndexConfig(AppConfig):
    name = "hermes_ui.index"
    label = "index"
    verbose_name = "Session index"
