"""What a SCIM change does beyond its row: ending access, memberships, the audit trail.

Kept apart from the adapters (which only translate SCIM JSON) so the effects
of deactivation are in one place: the account is disabled, every dashboard
session ends at its next request, the person's SCIM memberships go, and their
API tokens stop at once because a token acts with its owner's access as it is
now (``api_tokens.tokens.authenticate``), which an inactive person has none of.
"""

from __future__ import annotations

import logging

from allauth.socialaccount.models import SocialAccount

from hermes_ui.access.ending import end_sessions
from hermes_ui.access.models import Membership, Origin
from hermes_ui.access.rules import forget
from hermes_ui.api_tokens import tokens
from hermes_ui.api_tokens.models import ApiToken
from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record
from hermes_ui.sso.config import PROVIDER_ID

log = logging.getLogger("hermes_ui.scim")


def audit(capability: str, **evidence) -> None:
    """One audit event (by "(system)": the identity provider), ids and names only."""
    record(
        None,
        capability=f"scim.{capability}",
        endpoint="",
        outcome=Outcome.SUCCESS,
        evidence=evidence,
    )
    # Ids only: usernames and group names are personal data, kept in the trail alone.
    log.info("scim %s scim_id=%s", capability, evidence.get("scim_id", ""))


def deactivated(user, scim_id: str) -> None:
    """After ``user.is_active`` became False: end sessions, SCIM memberships and tokens.

    An inactive owner's tokens already stop at their next request; revoking
    them too means a later reactivation does not bring old tokens back.
    """
    left = Membership.objects.filter(user=user, origin=Origin.SCIM).delete()[0]
    end_sessions(user, reason="scim_deactivated")
    revoked = sum(
        tokens.revoke(token, None)
        for token in ApiToken.objects.filter(user=user, revoked_at__isnull=True)
    )
    forget(user)
    audit(
        "user_deactivate",
        account=user.get_username(),
        scim_id=scim_id,
        memberships_removed=left,
        tokens_revoked=revoked,
    )


def reactivated(user, scim_id: str) -> None:
    forget(user)
    audit("user_reactivate", account=user.get_username(), scim_id=scim_id)


def set_members(group, users, scim_id: str) -> None:
    """Make the group's SCIM members exactly ``users`` (PUT, or PATCH replace)."""
    wanted = {u.pk: u for u in users}
    have = set(
        Membership.objects.filter(group=group, origin=Origin.SCIM).values_list("user", flat=True)
    )
    add_members(group, [u for pk, u in wanted.items() if pk not in have], scim_id)
    gone = [pk for pk in have if pk not in wanted]
    if gone:
        remove_members(group, gone, scim_id)


def add_members(group, users, scim_id: str) -> None:
    added = []
    for user in users:
        _, made = Membership.objects.get_or_create(user=user, group=group, origin=Origin.SCIM)
        if made:
            added.append(user.get_username())
    if added:
        audit("member_add", group=group.name, scim_id=scim_id, accounts=added)


def remove_members(group, user_ids, scim_id: str | None = None) -> None:
    """Remove SCIM memberships of ``user_ids`` (all of them for None)."""
    found = Membership.objects.filter(group=group, origin=Origin.SCIM).select_related("user")
    if user_ids is not None:
        found = found.filter(user__in=list(user_ids))
    names = [m.user.get_username() for m in found]
    if names:
        found.delete()
        audit("member_remove", group=group.name, scim_id=scim_id or "", accounts=names)


def sso_account(external_id: str):
    """The account single sign-on already made for the identity whose ``sub`` is
    ``external_id`` (a person who signed in before the identity provider pushed them)."""
    if not external_id:
        return None
    found = SocialAccount.objects.filter(provider=PROVIDER_ID, uid=external_id).first()
    return found.user if found is not None and not found.user.is_superuser else None


def link_sso(user, external_id: str) -> None:
    """Link ``user`` to the SSO identity whose ``sub`` is the SCIM ``externalId``.

    Okta and Keycloak send their user id as ``externalId``, which is also the
    ``sub`` of their ID tokens: linked, the person's first sign-in lands on
    this account (not a new one), so a SCIM deactivation reaches the account
    they actually use. Nothing happens when either side is already linked.
    """
    if not external_id or len(external_id) > 191:  # allauth's SocialAccount.uid
        return
    if SocialAccount.objects.filter(provider=PROVIDER_ID, user=user).exists():
        return
    if SocialAccount.objects.filter(provider=PROVIDER_ID, uid=external_id).exists():
        return
    SocialAccount.objects.create(user=user, provider=PROVIDER_ID, uid=external_id)
    audit("sso_linked", account=user.get_username(), subject=external_id)
