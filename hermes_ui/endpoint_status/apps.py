from django.apps import AppConfig


def explain(sender, **kwargs) -> dict:
    """``session_api.explain``, imported on the first failure page: it brings the Hermes
    client, which a process that shows no page need not load at start."""
    from hermes_ui.endpoint_status import session_api

    return session_api.explain(sender, **kwargs)


class EndpointStatusConfig(AppConfig):
    """The endpoints page: reachability, version, capabilities and key of each endpoint."""

    name = "hermes_ui.endpoint_status"
    label = "endpoint_status"
    verbose_name = "Endpoint status"

    def ready(self):
        from hermes_ui.web.signals import failure_shown

        failure_shown.connect(explain, dispatch_uid="endpoint_status.explain")
