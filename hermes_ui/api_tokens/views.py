"""/account/tokens/: issue, list and revoke personal API tokens (instance admins: everyone's).

Minting needs a sign-in within the last ``FRESH`` (15 minutes): a browser session
left open, or taken over, cannot mint a long-lived token without the password or
the identity provider being asked again. The server refuses the POST; the page
says why and links to the login page, which comes back here.
"""

from datetime import timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from hermes_ui.access.ending import SIGNED_IN_AT
from hermes_ui.api_tokens import tokens
from hermes_ui.api_tokens.forms import TokenForm
from hermes_ui.web.roles import SUPPORT, role_required

FRESH = timedelta(minutes=15)


def signed_in_recently(request: HttpRequest) -> bool:
    """True when this browser session signed in within ``FRESH`` (``SIGNED_IN_AT``)."""
    at = request.session.get(SIGNED_IN_AT)
    if not isinstance(at, (int, float)) or isinstance(at, bool):
        return False
    age = timezone.now().timestamp() - at
    return -60 <= age <= FRESH.total_seconds()  # a minute of clock skew between workers


def sign_in_again_url() -> str:
    return f"{settings.LOGIN_URL}?{urlencode({'next': reverse('token_list')})}"


@require_http_methods(["GET", "POST"])
@role_required(SUPPORT)
def token_list(request: HttpRequest) -> HttpResponse:
    fresh = signed_in_recently(request)
    minting = request.method == "POST"
    form = TokenForm(request.POST if minting and fresh else None, user=request.user)
    issued = None
    if minting and fresh and form.is_valid():
        data = form.cleaned_data
        _, issued = tokens.issue(
            request.user,
            data["name"],
            days=data["days"],
            write=data["scope"] == "write",
            endpoints=data["endpoints"],
        )
        form = TokenForm(user=request.user)
    rows = [(token, tokens.state(token)) for token in tokens.visible_to(request.user)]
    context = {
        "form": form,
        "issued": issued,
        "rows": rows,
        "everyone": tokens.sees_everyones(request.user),
        "fresh": fresh,
        "fresh_minutes": int(FRESH.total_seconds() // 60),
        "sign_in_again": sign_in_again_url(),
    }
    status = 200
    if minting and not fresh:
        status = 403
    elif form.errors:
        status = 400
    response = render(request, "api_tokens/list.html", context, status=status)
    if issued:
        response["Cache-Control"] = "no-store"  # the page holds the token's only copy
    return response


@require_POST
@role_required(SUPPORT)
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(tokens.visible_to(request.user), pk=pk)
    if tokens.revoke(token, request.user):
        messages.success(request, f"Revoked the token “{token.name}”.")
    else:
        messages.info(request, f"The token “{token.name}” was already revoked.")
    return redirect("token_list")
