"""/account/tokens/: issue, list and revoke personal API tokens (admins: everyone's)."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from hermes_ui.api_tokens import tokens
from hermes_ui.api_tokens.forms import TokenForm
from hermes_ui.web.roles import ADMIN, SUPPORT, has_role, role_required


@require_http_methods(["GET", "POST"])
@role_required(SUPPORT)
def token_list(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST if request.method == "POST" else None)
    issued = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        _, issued = tokens.issue(
            request.user, data["name"], days=data["days"], write=data["scope"] == "write"
        )
        form = TokenForm()
    rows = [(token, tokens.state(token)) for token in tokens.visible_to(request.user)]
    context = {
        "form": form,
        "issued": issued,
        "rows": rows,
        "everyone": has_role(request.user, ADMIN),
    }
    response = render(request, "api_tokens/list.html", context, status=400 if form.errors else 200)
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
