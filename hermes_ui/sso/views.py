"""The login and logout pages, the OpenID Connect redirect and callback, and break-glass."""

from urllib.parse import urlencode

from allauth.socialaccount.models import SocialApp
from allauth.socialaccount.providers.oauth2.views import OAuth2LoginView
from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from hermes_ui.access.rules import access_of
from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record
from hermes_ui.sso import break_glass
from hermes_ui.sso.adapters import SESSION_BACKEND
from hermes_ui.sso.config import PROVIDER, PROVIDER_ID
from hermes_ui.sso.provider import Adapter, CallbackView
from hermes_ui.sso.session import LOGOUT_KEY


def sso_button() -> dict | None:
    config = settings.HERMES_UI_OIDC
    if config is None:
        return None
    url = reverse(f"{PROVIDER}_login", kwargs={"provider_id": PROVIDER_ID})
    return {"name": config.name, "url": url}


class LoginView(auth_views.LoginView):
    """Django's login page, with the single sign-on button, and the password form only
    while ``HERMES_UI_PASSWORD_LOGIN`` is on (django-axes guards that form as before)."""

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["password_login"] = settings.HERMES_UI_PASSWORD_LOGIN
        context["sso"] = sso_button()
        return context

    def post(self, request, *args, **kwargs):
        if not settings.HERMES_UI_PASSWORD_LOGIN:
            return render(request, "sso/password_off.html", {"sso": sso_button()}, status=403)
        return super().post(request, *args, **kwargs)


class LogoutView(auth_views.LogoutView):
    """Ends the dashboard session; after a single sign-on, also the provider's
    (RP-initiated logout), where it advertises an ``end_session_endpoint``."""

    def post(self, request, *args, **kwargs):
        at_provider = request.session.get(LOGOUT_KEY) or {}
        response = super().post(request, *args, **kwargs)
        endpoint = at_provider.get("end_session_endpoint")
        if not endpoint or settings.HERMES_UI_OIDC is None:
            return response
        query = urlencode(
            {
                "id_token_hint": at_provider["id_token"],
                "post_logout_redirect_uri": request.build_absolute_uri(reverse("login")),
                "client_id": settings.HERMES_UI_OIDC.client_id,
            }
        )
        return HttpResponseRedirect(f"{endpoint}{'&' if '?' in endpoint else '?'}{query}")


def _adapter_view(view_class, request, provider_id):
    if settings.HERMES_UI_OIDC is None or provider_id != PROVIDER_ID:
        raise Http404("Single sign-on is not configured.")
    try:
        return view_class.adapter_view(Adapter(request, provider_id))(request)
    except SocialApp.DoesNotExist:
        raise Http404("Single sign-on is not configured.") from None


@login_not_required
def oidc_login(request: HttpRequest, provider_id) -> HttpResponse:
    """POST: off to the provider (state, nonce and a PKCE challenge kept in the session)."""
    return _adapter_view(OAuth2LoginView, request, provider_id)


@login_not_required
def oidc_callback(request: HttpRequest, provider_id) -> HttpResponse:
    """The provider's answer: allauth checks the state and exchanges the code (with the PKCE
    verifier); hermes_ui.sso.provider checks the ID token; the adapters map the role."""
    return _adapter_view(CallbackView, request, provider_id)


@login_not_required
def not_here(request: HttpRequest) -> HttpResponse:
    """allauth's own pages that this dashboard does not offer (signup, inactive account)."""
    return render(
        request, "sso/refused.html", {"message": _NOT_HERE, "reason": "closed"}, status=403
    )


_NOT_HERE = (
    "Accounts are not made here. Sign in with your identity provider, or ask an "
    "administrator for an account."
)


@login_not_required
@require_http_methods(["GET", "POST"])
def break_glass_login(request: HttpRequest, uid, token) -> HttpResponse:
    """The link ``manage.py break_glass`` prints: GET shows a button (a link preview must
    not spend it), POST signs the admin in and spends it."""
    user = break_glass.user_for(uid, token)
    if user is None or not access_of(user).instance_admin:
        return render(request, "sso/break_glass.html", {"invalid": True}, status=400)
    if request.method == "GET":
        return render(request, "sso/break_glass.html", {"account": user})
    login(request, user, backend=SESSION_BACKEND)
    record(user, capability="auth.break_glass", endpoint="", outcome=Outcome.SUCCESS)
    return redirect(settings.LOGIN_REDIRECT_URL)
