"""Template helpers of the deletion feature: links, the open request, the queue badge."""

from urllib.parse import urlencode

from django import template
from django.urls import reverse

from hermes_ui.deletion.models import DeletionRequest, Status
from hermes_ui.deletion.policy import RULES
from hermes_ui.deletion.request import open_case
from hermes_ui.web.roles import ADMIN, has_role

register = template.Library()


@register.simple_tag
def deletion_new_url(endpoint_id: str, session_id: str) -> str:
    # The id travels in the query string: any id, even "." or "..", stays intact.
    url = reverse("deletion_new", kwargs={"endpoint": endpoint_id})
    return url + "?" + urlencode({"session": session_id})


@register.simple_tag
def open_deletion(endpoint, session_id: str):
    """The session page's action shows the open request's number and status only."""
    return open_case(endpoint, session_id)


@register.simple_tag(takes_context=True)
def deletion_pending_count(context) -> int:
    """Requests waiting for an admin (an approval or a check); 0 for everyone else."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not has_role(user, ADMIN):
        return 0
    return DeletionRequest.objects.filter(status__in=[Status.PENDING, Status.UNCERTAIN]).count()


@register.filter
def rule_label(value: str) -> str:
    return RULES.get(value, value)
