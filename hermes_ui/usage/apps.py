from django.apps import AppConfig


class UsageConfig(AppConfig):
    """Usage over time: token and cost changes booked per day at each index sync."""

    name = "hermes_ui.usage"
    label = "usage"
    verbose_name = "Usage"

    def ready(self):
        from hermes_ui.index import observers
        from hermes_ui.usage import booking

        observers.register("usage", booking.book)
