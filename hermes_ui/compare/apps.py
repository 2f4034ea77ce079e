from django.apps import AppConfig


class CompareConfig(AppConfig):
    """Compare two branches side by side; record which one a reviewer prefers."""

    name = "hermes_ui.compare"
    label = "compare"
    verbose_name = "Compare and review"

    def ready(self):
        # Its region of the session page (web.session_regions places it).
        from hermes_ui.web import session_regions

        session_regions.register(
            "compare", "compare/_session_region.html", place="side", order=60, key="c"
        )
