from django.apps import AppConfig


class HermesUiConfig(AppConfig):
    name = "hermes_ui"
    verbose_name = "Hermes UI"

    def ready(self):
        from hermes_ui.platform.private_files import log_made_private

        # Start-up made the data folder private before logging was set up.
        log_made_private()
