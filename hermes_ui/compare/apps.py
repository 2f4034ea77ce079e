from django.apps import AppConfig


class CompareConfig(AppConfig):
    """Compare two branches side by side; record which one a reviewer prefers."""

    name = "hermes_ui.compare"
    label = "compare"
    verbose_name = "Compare and review"

    def ready(self):
        from hermes_ui.compare import erase
        from hermes_ui.compare.models import Verdict
        from hermes_ui.platform import erasers

        erasers.register(
            "verdicts", "review verdicts", erase.erase, models=[Verdict], held=erase.held
        )
