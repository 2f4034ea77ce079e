from django.apps import AppConfig


class EndpointStatusConfig(AppConfig):
    """The endpoints page: reachability, version, capabilities and key of each endpoint."""

    name = "hermes_ui.endpoint_status"
    label = "endpoint_status"
    verbose_name = "Endpoint status"
