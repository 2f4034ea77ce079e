from django.apps import AppConfig


class ScimConfig(AppConfig):
    name = "hermes_ui.scim"
    label = "scim"
    verbose_name = "SCIM provisioning"
