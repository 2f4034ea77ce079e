from django.apps import AppConfig


class UsageConfig(AppConfig):
    """Usage over time: token and cost changes booked per day at each index sync."""

    name = "hermes_ui.usage"
    label = "usage"
    verbose_name = "Usage"

    def ready(self):
        from hermes_ui.index import observers
        from hermes_ui.platform import erasers
        from hermes_ui.usage import booking, erase
        from hermes_ui.usage.models import Booking

        observers.register("usage", booking.book)
        erasers.register(
            "usage_bookings", "usage bookings", erase.erase, models=[Booking], held=erase.held
        )
