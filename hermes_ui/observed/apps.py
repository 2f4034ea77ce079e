from django.apps import AppConfig


class ObservedConfig(AppConfig):
    name = "hermes_ui.observed"
    label = "observed"
    verbose_name = "Observed endpoint behaviour"
