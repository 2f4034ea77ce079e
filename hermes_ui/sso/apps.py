from django.apps import AppConfig


class SsoConfig(AppConfig):
    name = "hermes_ui.sso"
    label = "sso"
    verbose_name = "Single sign-on"

    def ready(self):
        from hermes_ui.sso import session  # noqa: F401 - connects its receiver
