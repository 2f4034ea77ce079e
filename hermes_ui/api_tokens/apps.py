from django.apps import AppConfig


class ApiTokensConfig(AppConfig):
    """Personal API tokens: issued, listed and revoked at /account/tokens/."""

    name = "hermes_ui.api_tokens"
    label = "api_tokens"
    verbose_name = "API tokens"
