"""The dashboard's own index of Hermes sessions, and its memory of forks it made."""

from django.apps import AppConfig
from django.core.signals import request_started


class IndexConfig(AppConfig):
    name = "hermes_ui.index"
    label = "index"
    verbose_name = "Session index"

    def ready(self):
        from hermes_ui.index.refresher import on_request_started

        request_started.connect(on_request_started, dispatch_uid="hermes_ui.index.refresher")
