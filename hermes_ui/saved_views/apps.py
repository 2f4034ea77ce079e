from django.apps import AppConfig


class SavedViewsConfig(AppConfig):
    """Saved index queries: personal or shared, a default per user, and built-in views."""

    name = "hermes_ui.saved_views"
    label = "saved_views"
    verbose_name = "Saved views"

    def ready(self):
        from hermes_ui.saved_views import catalogue
        from hermes_ui.search import defaults

        defaults.register(catalogue.start)
