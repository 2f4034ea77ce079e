"""allauth's OpenID Connect provider, stricter: a nonce, a signed ID token, one issuer."""

import secrets

import requests
from allauth.socialaccount.internal import jwtkit
from allauth.socialaccount.providers.oauth2.client import OAuth2Error
from allauth.socialaccount.providers.oauth2.views import OAuth2CallbackView
from allauth.socialaccount.providers.openid_connect.provider import OpenIDConnectProvider
from allauth.socialaccount.providers.openid_connect.views import OpenIDConnectOAuth2Adapter
from allauth.utils import build_absolute_uri
from django.conf import settings
from django.urls import reverse

from hermes_ui.sso.config import PROVIDER


class Adapter(OpenIDConnectOAuth2Adapter):
    state: dict | None = None  # set by CallbackView once allauth has found it

    @property
    def openid_config(self):
        config = super().openid_config
        if str(config.get("issuer", "")).rstrip("/") != settings.HERMES_UI_OIDC.issuer:
            raise OAuth2Error("The discovery document names another issuer.")
        return config

    def complete_login(self, request, app, token, **kwargs):
        raw = kwargs["response"].get("id_token")
        if not raw:
            raise OAuth2Error("The provider sent no ID token.")
        claims = jwtkit.verify_and_decode(
            credential=raw,
            keys_url=self.openid_config["jwks_uri"],
            issuer=self.openid_config["issuer"],
            audience=app.client_id,
            lookup_kid=jwtkit.lookup_kid_jwk,
            verify_signature=True,
        )
        expected = (self.state or {}).get("nonce")
        if not expected or not secrets.compare_digest(str(claims.get("nonce", "")), expected):
            raise OAuth2Error("The ID token's nonce is not the one this sign-in sent.")
        data = {"id_token": claims}
        if app.settings.get("fetch_userinfo", True) and self.openid_config.get("userinfo_endpoint"):
            userinfo = self._fetch_user_info(token.token)
            if userinfo.get("sub") != claims.get("sub"):
                raise OAuth2Error("Userinfo is about another subject than the ID token.")
            data["userinfo"] = userinfo
        # For logout at the provider (hermes_ui.sso.session keeps them in the session).
        request.hermes_oidc_sid = str(claims.get("sid") or "")[:255]
        request.hermes_oidc_logout = {
            "id_token": raw,
            "end_session_endpoint": self.openid_config.get("end_session_endpoint", ""),
        }
        return self.get_provider().sociallogin_from_response(request, data)

    def get_callback_url(self, request, app):
        url = reverse(f"{PROVIDER}_callback", kwargs={"provider_id": self.provider_id})
        return build_absolute_uri(request, url, self.redirect_uri_protocol)


class CallbackView(OAuth2CallbackView):
    def _get_state(self, request, provider):
        state, response = super()._get_state(request, provider)
        self.adapter.state = state
        return state, response


class Provider(OpenIDConnectProvider):
    id = PROVIDER
    name = "OpenID Connect"
    oauth2_adapter_class = Adapter

    def redirect(self, request, process, next_url=None, data=None, **kwargs):
        nonce = secrets.token_urlsafe(32)
        auth_params = kwargs.pop("auth_params", None)
        auth_params = dict(self.get_auth_params() if auth_params is None else auth_params)
        auth_params["nonce"] = nonce
        try:
            return super().redirect(
                request, process, next_url, data, auth_params=auth_params, nonce=nonce, **kwargs
            )
        except (requests.RequestException, ValueError, KeyError, OAuth2Error) as error:
            # The discovery document: unreachable (SOCIALACCOUNT_REQUESTS_TIMEOUT), not
            # JSON, or for another issuer. Nothing was sent to the provider yet.
            from hermes_ui.sso.refusal import audit_refusal, refusal_page

            audit_refusal(request, "unreachable", detail=type(error).__name__)
            return refusal_page(request, "unreachable", status=503)


provider_classes = [Provider]
