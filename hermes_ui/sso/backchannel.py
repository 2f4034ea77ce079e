"""OpenID Connect Back-Channel Logout 1.0: the provider tells us a person signed out there.

The provider POSTs a ``logout_token`` (a signed JWT) to
``/accounts/oidc/backchannel-logout/``, server to server: no cookie, no CSRF
token. We check it as the specification says (signature by a key of the
provider's JWKS, ``iss``, ``aud`` = our client id, a recent ``iat``, the
back-channel logout event, ``sub`` and/or ``sid``, and no ``nonce``), then end
every dashboard session of that person. 200 when done (also for a person we do
not know); 400 with a JSON error for a token we refuse; never a 500.
"""

from __future__ import annotations

import time

import jwt
import requests
from allauth.socialaccount.internal import jwtkit
from allauth.socialaccount.models import SocialAccount
from allauth.socialaccount.providers.oauth2.client import OAuth2Error
from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.cache import cache
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from hermes_ui.access.ending import end_sessions
from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record
from hermes_ui.sso import config as sso_config
from hermes_ui.sso.config import PROVIDER_ID
from hermes_ui.sso.models import SsoCheck

EVENT = "http://schemas.openid.net/event/backchannel-logout"
# A logout token older than this (by its ``iat``) is refused: a replay, or a clock far off.
MAX_AGE = 300
LEEWAY = 30
# Asymmetric only: a token signed with a shared secret or "none" never passes.
ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512")


class BadToken(Exception):
    """The logout token is refused; the message says why (no token text in it)."""


def shape(token: str) -> dict:
    """The token's header if it looks like a logout token at all (before any network call)."""
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise BadToken("the logout token is not a JWT") from None
    alg = header.get("alg")
    if alg not in ALGORITHMS:
        raise BadToken(f"the logout token's algorithm {str(alg)[:10]!r} is not accepted")
    return header


def verify(token: str, *, issuer: str, audience: str, keys: dict, now: float | None = None):
    """The logout token's claims, or BadToken. ``keys``: the provider's JWKS document."""
    now = time.time() if now is None else now
    header = shape(token)
    alg = header["alg"]
    try:
        key = jwtkit.lookup_kid_jwk(keys, header.get("kid"))
    except (OAuth2Error, KeyError, TypeError, ValueError, jwt.PyJWTError):
        key = None
    if key is None:
        raise BadToken("the logout token is signed by a key the provider does not publish")
    try:
        claims = jwt.decode(
            token,
            key=key,
            algorithms=[alg],
            issuer=issuer,
            audience=audience,
            leeway=LEEWAY,
            options={"require": ["iss", "aud", "iat", "jti", "events"], "verify_iat": True},
        )
    except jwt.InvalidSignatureError:
        raise BadToken("the logout token's signature is wrong") from None
    except jwt.InvalidAudienceError:
        raise BadToken("the logout token is for another client") from None
    except jwt.InvalidIssuerError:
        raise BadToken("the logout token is from another issuer") from None
    except jwt.ExpiredSignatureError:
        raise BadToken("the logout token has expired") from None
    except jwt.PyJWTError as error:
        raise BadToken(f"the logout token is invalid ({type(error).__name__})") from None
    iat = claims.get("iat")
    if not isinstance(iat, int | float) or iat < now - MAX_AGE or iat > now + LEEWAY:
        raise BadToken("the logout token is too old or from the future")
    events = claims.get("events")
    if not isinstance(events, dict) or not isinstance(events.get(EVENT), dict):
        raise BadToken("the logout token does not carry the back-channel logout event")
    if "nonce" in claims:
        raise BadToken("a logout token must not carry a nonce")
    if not claims.get("sub") and not claims.get("sid"):
        raise BadToken("the logout token names neither sub nor sid")
    # Each token once: a replay within its lifetime is refused.
    if not cache.add(f"hermes_ui.sso.logout:{claims['jti']}", True, timeout=MAX_AGE + LEEWAY):
        raise BadToken("the logout token was already used")
    return claims


def provider_keys() -> tuple[str, dict]:
    """The provider's issuer and JWKS, from its discovery document (with the request timeout)."""
    from allauth.socialaccount.adapter import get_adapter

    issuer = sso_config.current().issuer
    with get_adapter().get_requests_session() as http:
        config = http.get(issuer + "/.well-known/openid-configuration")
        config.raise_for_status()
        found = config.json()
        if str(found.get("issuer", "")).rstrip("/") != issuer:
            raise ValueError("the discovery document names another issuer")
        keys = http.get(found["jwks_uri"])
        keys.raise_for_status()
        return found["issuer"], keys.json()


def _error(message: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"error": "invalid_request", "error_description": message}, status=status)


def people(claims: dict) -> list:
    """The accounts the token names: by ``sub`` (the linked identity), else by ``sid``."""
    sub, sid = claims.get("sub"), claims.get("sid")
    if sub:
        accounts = SocialAccount.objects.filter(provider=PROVIDER_ID, uid=str(sub))
        return [account.user for account in accounts.select_related("user")]
    return [check.user for check in SsoCheck.objects.filter(sid=str(sid)).select_related("user")]


@csrf_exempt
@login_not_required
@never_cache
@require_POST
def backchannel_logout(request: HttpRequest) -> JsonResponse:
    """The provider's back-channel logout: verify the token, end the person's sessions."""
    config = settings.HERMES_UI_OIDC
    if config is None:
        return _error("single sign-on is not configured", status=404)
    token = request.POST.get("logout_token", "")
    if not token or len(token) > 16_384:
        return _error("logout_token is missing")
    try:
        shape(token)  # junk is refused before the provider's keys are fetched
        try:
            issuer, keys = provider_keys()
        except (requests.RequestException, ValueError, KeyError, TypeError):
            return _error("the provider's keys could not be read; try again")
        claims = verify(token, issuer=issuer, audience=config.client_id, keys=keys)
    except BadToken as refused:
        record(
            None,
            capability="auth.sso_backchannel_logout",
            endpoint="",
            outcome=Outcome.REFUSED,
            error_code="bad_token",
            evidence={"code": str(refused)},
        )
        return _error(str(refused))
    ended = []
    for user in people(claims):
        end_sessions(user, reason="idp_logout")
        ended.append(user.get_username())
    record(
        None,
        capability="auth.sso_backchannel_logout",
        endpoint="",
        outcome=Outcome.SUCCESS,
        evidence={"subject": str(claims.get("sub", ""))[:191], "account": ", ".join(ended)},
    )
    return JsonResponse({"ended": len(ended)}, json_dumps_params={"separators": (",", ":")})
