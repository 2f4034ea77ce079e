"""The dashboard's own index of Hermes sessions, and its memory of forks it made."""

from django.apps import AppConfig


class IndexConfig(AppConfig):
    name = "hermes_ui.index"
    label = "index"
    verbose_name = "Session index"

    def ready(self):
        from hermes_ui.index import archived

        archived.register()  # the archived: filter (archived:no by default) and its badge
