from django.apps import AppConfig


class EndpointStatusConfig(AppConfig):
    """The endpoints page: reachability, version, capabilities and key of each endpoint."""

    name = "hermes_ui.endpoint_status"
    label = "endpoint_status"
    verbose_name = "Endpoint status"

    def ready(self):
        from hermes_ui.endpoint_status import session_api
        from hermes_ui.web.signals import failure_shown

        failure_shown.connect(session_api.explain, dispatch_uid="endpoint_status.explain")
