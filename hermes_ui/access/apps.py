from django.apps import AppConfig


class AccessConfig(AppConfig):
    name = "hermes_ui.access"
    label = "access"
    verbose_name = "Access"

    def ready(self):
        from hermes_ui.access import ending  # noqa: F401 - notes when each session signed in
