"""What every route starts from: the endpoint in the path, the caller's role, masking."""

from __future__ import annotations

from hermes_ui.hermes.ids import check_path_id
from hermes_ui.platform.endpoints import Endpoint, get_endpoint
from hermes_ui.web import masking
from hermes_ui.web.roles import require_role


def endpoint(request, endpoint_id: str, role: str) -> Endpoint:
    """The endpoint named in the path (404 if none is configured), for ``role`` or higher."""
    require_role(request.user, role)
    return get_endpoint(endpoint_id)


def session_id(value: str) -> str:
    check_path_id(value)  # IdError: a 400 with its message
    return value


def masked(request, redact: bool) -> bool:
    return masking.masked(request.user, redact)
