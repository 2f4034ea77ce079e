from django.apps import AppConfig


class VerificationConfig(AppConfig):
    """``manage.py verify_endpoint``: the contract's integration check, and its reports."""

    name = "hermes_ui.verification"
    label = "verification"
    verbose_name = "Endpoint verification"
