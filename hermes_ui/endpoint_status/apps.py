from django.apps import AppConfig


class EndpointStatusConfig(AppConfig):
    """The endpoints page: reachability, version, capabilities and key of each endpoint."""

    name = "hermes_ui.endpoint_status"
    label = "endpoint_status"
    verbose_name = "Endpoint status"

    def ready(self):
        from hermes_ui.endpoint_status import session_api
        from hermes_ui.web import failures

        failures.explain(session_api.NO_SESSION_API, session_api.explain)
