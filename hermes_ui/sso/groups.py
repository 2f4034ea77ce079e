"""A person's identity-provider groups, as the provider claims them, become memberships.

Sign-in and revalidation both call ``apply``: the person's ``sso`` memberships
become exactly the claimed groups that mean something here (named in
``HERMES_UI_GROUP_ROLES`` or holding a grant), so a person in hundreds of
directory groups adds a handful of rows. What a group gives is decided by
``access.rules`` at each request, never copied onto the person.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.db import transaction

from hermes_ui.access.grants import sync_origin
from hermes_ui.access.models import Grant, IdpGroup, Membership, Origin
from hermes_ui.access.rules import RANK, Access, Rule, forget


def meaningful(groups: Iterable[str]) -> list[str]:
    """The claimed groups that give something: in the settings' map, or with a grant."""
    claimed = {g for g in groups if isinstance(g, str) and g and len(g) <= 200}
    mapped = {g for g in claimed if g in settings.HERMES_UI_GROUP_ROLES}
    granted = set(
        Grant.objects.filter(group__name__in=claimed - mapped).values_list("group__name", flat=True)
    )
    return sorted(mapped | granted)


def access_from(groups: Iterable[str]) -> Access:
    """What these groups alone give (for a person who has no account yet)."""
    names = meaningful(groups)
    found = [item for name in names for item in settings.HERMES_UI_GROUP_ROLES.get(name, ())]
    found += [
        (ep, role, srcs)
        for ep, role, srcs in Grant.objects.filter(group__name__in=names).values_list(
            "endpoint", "role", "sources"
        )
    ]
    rules = {
        Rule(ep, RANK[role], frozenset(srcs) if srcs else None)
        for ep, role, srcs in found
        if role in RANK
    }
    return Access(tuple(sorted(rules, key=lambda r: (-r.rank, r.endpoint))))


@transaction.atomic
def apply(user, groups: Iterable[str]) -> list[str]:
    """Make the person's ``sso`` memberships exactly the meaningful ``groups``; drop the
    person-level ``sso`` grants (the upgrade gave SSO people one on ``*``). The names kept."""
    names = meaningful(groups)
    for name in names:
        IdpGroup.objects.get_or_create(name=name)
    Membership.objects.filter(user=user, origin=Origin.SSO).exclude(group__name__in=names).delete()
    have = set(names_of(user))
    Membership.objects.bulk_create(
        [
            Membership(user=user, group=group, origin=Origin.SSO)
            for group in IdpGroup.objects.filter(name__in=set(names) - have)
        ]
    )
    sync_origin(user, Origin.SSO, [])
    forget(user)
    return names


@transaction.atomic
def remove(user) -> None:
    """Take away everything the provider gave: ``sso`` memberships and ``sso`` grants,
    and the stored tokens (nothing may be refreshed with them any more)."""
    from allauth.socialaccount.models import SocialToken

    Membership.objects.filter(user=user, origin=Origin.SSO).delete()
    SocialToken.objects.filter(account__user=user).delete()
    sync_origin(user, Origin.SSO, [])
    forget(user)


def labels(access: Access) -> list[str]:
    """``role@endpoint[sources]`` for the audit trail."""
    from hermes_ui.access.models import ROLES

    return [
        f"{ROLES[r.rank - 1]}@{r.endpoint}"
        + (f"[{','.join(sorted(r.sources))}]" if r.sources else "")
        for r in access.rules
    ]


def names_of(user) -> list[str]:
    """The groups the provider last gave this person (their ``sso`` memberships)."""
    rows = Membership.objects.filter(user=user, origin=Origin.SSO)
    return sorted(rows.values_list("group__name", flat=True))
