"""Asking the identity provider again: each SSO person's refresh token, every interval.

A round of the schedule (``revalidate_round``, every minute) refreshes each
person whose last check is older than ``HERMES_UI_SSO_REVALIDATE_MINUTES``:

- the provider refuses (``invalid_grant``: the account is disabled, the grant
  revoked) -> what it gave goes at once, their sessions end;
- it answers -> their groups are the ones it names now (a lost group's role is
  gone at the next request, and so are their API tokens if nothing is left);
- it does not answer (timeout, refused connection, 5xx) -> they keep what they
  have, one log line, another try next round; after three intervals without
  an answer it counts as refused (fail closed).

Every request has ``SOCIALACCOUNT_REQUESTS_TIMEOUT`` as its deadline. No token
is ever logged or audited.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta

import requests
from allauth.socialaccount.adapter import get_adapter
from allauth.socialaccount.internal import jwtkit
from allauth.socialaccount.models import SocialAccount, SocialToken
from allauth.socialaccount.providers.oauth2.client import OAuth2Error
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils import timezone

from hermes_ui.access.ending import end_sessions
from hermes_ui.access.models import Membership, Origin
from hermes_ui.access.rules import access_of
from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record
from hermes_ui.sso import config as sso_config
from hermes_ui.sso import groups as idp_groups
from hermes_ui.sso.claims import groups_of
from hermes_ui.sso.config import PROVIDER_ID
from hermes_ui.sso.models import SsoCheck

log = logging.getLogger("hermes_ui.sso")

# Unanswered intervals after which the provider's silence counts as a refusal.
FAIL_CLOSED_AFTER = 3


class Unreachable(Exception):
    """The provider did not answer usefully (no secret in the message)."""


class Refused(Exception):
    """The provider refused the refresh token: the person's access from it ends."""


def interval() -> timedelta | None:
    minutes = settings.HERMES_UI_SSO_REVALIDATE_MINUTES
    if settings.HERMES_UI_OIDC is None or not minutes:
        return None
    return timedelta(minutes=minutes)


def round_seconds() -> float:
    """The schedule's interval for the round: every minute while revalidation is on."""
    return 60.0 if interval() is not None else 0


@dataclass
class Provider:
    """The provider's discovery document, read once per round."""

    config: dict = field(default_factory=dict)

    @classmethod
    def read(cls) -> Provider:
        issuer = sso_config.current().issuer
        try:
            with get_adapter().get_requests_session() as http:
                answer = http.get(issuer + "/.well-known/openid-configuration")
            if answer.status_code != 200:
                raise Unreachable(f"discovery answered {answer.status_code}")
            config = answer.json()
        except (requests.RequestException, ValueError) as error:
            raise Unreachable(f"discovery: {type(error).__name__}") from None
        if str(config.get("issuer", "")).rstrip("/") != issuer or not config.get("token_endpoint"):
            raise Unreachable("the discovery document names another issuer or no token endpoint")
        return cls(config)


def refresh(provider: Provider, account: SocialAccount, token: SocialToken) -> dict:
    """The refresh grant, then the claims of the new ID token and userinfo (about ``sub``)."""
    oidc = sso_config.current()
    try:
        with get_adapter().get_requests_session() as http:
            answer = http.post(
                provider.config["token_endpoint"],
                data={"grant_type": "refresh_token", "refresh_token": token.token_secret},
                auth=(oidc.client_id, oidc.client_secret),
                headers={"Accept": "application/json"},
            )
            if answer.status_code >= 500:
                raise Unreachable(f"token endpoint answered {answer.status_code}")
            try:
                body = answer.json()
            except ValueError:
                raise Unreachable(f"token endpoint answered {answer.status_code}") from None
            if answer.status_code != 200:
                error = str(body.get("error", "")) if isinstance(body, dict) else ""
                if error == "invalid_grant":
                    raise Refused(error)
                raise Unreachable(f"token endpoint answered {answer.status_code} {error[:40]}")
            claims = {}
            if body.get("id_token"):
                claims = jwtkit.verify_and_decode(
                    credential=body["id_token"],
                    keys_url=provider.config["jwks_uri"],
                    issuer=provider.config["issuer"],
                    audience=oidc.client_id,
                    lookup_kid=jwtkit.lookup_kid_jwk,
                    verify_signature=True,
                )
            userinfo_url = provider.config.get("userinfo_endpoint")
            if userinfo_url and body.get("access_token"):
                got = http.get(
                    userinfo_url, headers={"Authorization": f"Bearer {body['access_token']}"}
                )
                if got.status_code >= 500:
                    raise Unreachable(f"userinfo answered {got.status_code}")
                if got.status_code == 200:
                    claims = {**claims, **got.json()}
    except requests.RequestException as error:
        raise Unreachable(type(error).__name__) from None
    except (OAuth2Error, ValueError, KeyError, TypeError) as error:
        raise Unreachable(f"unusable answer: {type(error).__name__}") from None
    if claims.get("sub") != account.uid:
        raise Unreachable("the answer is about another subject")
    token.token = body.get("access_token") or token.token
    if body.get("refresh_token"):  # a provider that rotates them
        token.token_secret = body["refresh_token"]
    expires = body.get("expires_in")
    if isinstance(expires, int):
        token.expires_at = timezone.now() + timedelta(seconds=expires)
    token.save()
    return claims


def due_people():
    """SSO people who hold something the provider gave (an sso membership or grant)."""
    return (
        get_user_model()
        .objects.filter(is_active=True, socialaccount__provider=PROVIDER_ID)
        .filter(
            Q(pk__in=Membership.objects.filter(origin=Origin.SSO).values("user"))
            | Q(grants__origin=Origin.SSO)
        )
        .distinct()
    )


def _audit(user, outcome: str, code: str, **evidence) -> None:
    record(
        None,
        capability="auth.sso_revalidated",
        endpoint="",
        outcome=outcome,
        error_code=code,
        evidence={"account": user.get_username(), **evidence},
    )


def take_away(user, code: str) -> None:
    """What the provider gave goes now, and every session of theirs ends."""
    idp_groups.remove(user)
    end_sessions(user, reason="sso_refused")
    _audit(user, Outcome.REFUSED, code)


def check(user, provider_or_error, now, every: timedelta) -> str:
    """Revalidate one person; what happened: ok, changed, emptied, refused or unreachable."""
    state, _made = SsoCheck.objects.get_or_create(user=user, defaults={"checked_at": now})
    if _made or state.checked_at > now - every:
        return "fresh"
    account = SocialAccount.objects.filter(user=user, provider=PROVIDER_ID).first()
    token = (
        SocialToken.objects.filter(account=account).exclude(token_secret="").order_by("-pk").first()
        if account is not None
        else None
    )
    try:
        if isinstance(provider_or_error, Unreachable):
            raise provider_or_error
        if token is None:
            raise Unreachable("no refresh token stored (signed in before revalidation was on)")
        claims = refresh(provider_or_error, account, token)
    except Refused as refused:
        take_away(user, "refused")
        log.info("SSO revalidation: the provider refused %s (%s)", user.get_username(), refused)
        return "refused"
    except Unreachable as error:
        state.tried_at, state.failures = now, state.failures + 1
        state.save(update_fields=["tried_at", "failures"])
        if state.checked_at <= now - every * FAIL_CLOSED_AFTER:
            take_away(user, "unanswered")
            log.warning(
                "SSO revalidation of %s: no answer for %d intervals (%s): access removed",
                user.get_username(),
                FAIL_CLOSED_AFTER,
                error,
            )
            return "refused"
        # Said once per streak (every round retries; the fail-closed line follows).
        log.log(
            logging.WARNING if state.failures == 1 else logging.DEBUG,
            "SSO revalidation of %s: the provider did not answer (%s); "
            "kept for now, tried again each round",
            user.get_username(),
            error,
        )
        return "unreachable"
    before = set(idp_groups.names_of(user))
    kept = idp_groups.apply(user, groups_of(claims, sso_config.current().role_claim))
    state.checked_at, state.tried_at, state.failures = now, now, 0
    state.save(update_fields=["checked_at", "tried_at", "failures"])
    if access_of(user).highest() is None:
        # Out of every group that gives something, and nothing local: signed out now.
        take_away(user, "no_role")
        return "emptied"
    if set(kept) != before:
        _audit(
            user,
            Outcome.SUCCESS,
            "",
            groups=kept,
            grants=idp_groups.labels(access_of(user)),
        )
        return "changed"
    return "ok"


def revalidate_round() -> dict:
    """Revalidate every SSO person who is due; counts by outcome (the round's record)."""
    every = interval()
    if every is None:
        return {}
    now = timezone.now()
    provider: Provider | Unreachable | None = None
    counts: dict[str, int] = {}
    for user in due_people():
        state = SsoCheck.objects.filter(user=user).values_list("checked_at", flat=True).first()
        if state is not None and state > now - every:
            continue
        if provider is None:
            try:
                provider = Provider.read()
            except Unreachable as error:
                provider = error
        outcome = check(user, provider, now, every)
        counts[outcome] = counts.get(outcome, 0) + 1
    return counts
