"""Who has what: a person's grants (own, through groups, from the settings) and effective roles.

The /access/ page and ``manage.py access`` show the same picture, so it is
built once here. It only describes; what a person may do is still decided by
``access.rules.access_of``, which the effective roles below ask.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from hermes_ui.access.models import Grant, IdpGroup, Membership
from hermes_ui.access.rules import access_of

SETTINGS = "settings"
SETTINGS_LABEL = "from settings (HERMES_UI_OIDC_ROLES)"


@dataclass(frozen=True)
class Line:
    """One grant as shown: whose, from where, and (for a stored one) its id to revoke it."""

    endpoint: str
    role: str
    sources: tuple[str, ...]
    origin: str  # local, sso, scim, or SETTINGS (the read-only group map)
    via: str = ""  # the group's name, when the person has it through a group
    grant_id: int | None = None

    @property
    def label(self) -> str:
        limit = f" (sources: {', '.join(self.sources)})" if self.sources else ""
        return f"{self.role} on {self.endpoint}{limit}"

    @property
    def origin_label(self) -> str:
        return SETTINGS_LABEL if self.origin == SETTINGS else dict(_ORIGINS).get(self.origin, "")


_ORIGINS = [("local", "local"), ("sso", "SSO"), ("scim", "SCIM")]


@dataclass(frozen=True)
class Effective:
    """The person's role on one configured endpoint, as ``access_of`` decides it."""

    endpoint: str
    role: str | None  # on every source of the endpoint
    by_source: tuple[tuple[str, str], ...]  # (source, role) where a source differs

    @property
    def label(self) -> str:
        parts = [self.role] if self.role else []
        parts += [f"{role} on source {source}" for source, role in self.by_source]
        return "; ".join(parts) or "none"


def _line(grant: Grant, via: str = "") -> Line:
    return Line(
        grant.endpoint,
        grant.role,
        tuple(grant.sources or ()),
        grant.origin,
        via=via,
        grant_id=grant.pk,
    )


def group_map() -> dict[str, list[Line]]:
    """The settings' group map (HERMES_UI_GROUP_ROLES) as read-only lines, by group name."""
    mapped = getattr(settings, "HERMES_UI_GROUP_ROLES", None) or {}
    return {
        name: [
            Line(ep, role, tuple(sources or ()), SETTINGS, via=name) for ep, role, sources in rows
        ]
        for name, rows in sorted(mapped.items())
    }


def people_queryset(queryset):
    """``queryset`` of users with what ``lines_of`` and ``groups_of`` read, fetched in bulk."""
    from django.db.models import Prefetch

    return queryset.prefetch_related(
        "grants",
        Prefetch(
            "membership_set",
            queryset=Membership.objects.select_related("group")
            .prefetch_related("group__grants")
            .order_by("group__name", "origin"),
        ),
    )


def lines_of(user) -> list[Line]:
    """Every grant that reaches ``user``: their own, their groups', the settings' map."""
    found = [_line(g) for g in user.grants.all()]
    mapped = group_map()
    seen: set[str] = set()
    for membership in user.membership_set.all():
        group = membership.group
        if group.name in seen:  # a member both by SSO and by SCIM
            continue
        seen.add(group.name)
        found += [_line(g, via=group.name) for g in group.grants.all()]
        found += mapped.get(group.name, [])
    return sorted(found, key=lambda line: (line.via, line.endpoint, line.role, line.origin))


def groups_of(user) -> list[tuple[str, str]]:
    """The person's identity-provider groups: (name, origin label), one per membership."""
    labels = dict(_ORIGINS)
    return [(m.group.name, labels.get(m.origin, m.origin)) for m in user.membership_set.all()]


def effective(user) -> list[Effective]:
    """The person's role on every configured endpoint, per ``access_of`` (the one rule)."""
    access = access_of(user)
    out = []
    for endpoint in settings.HERMES_ENDPOINTS:
        whole = access.role_on(endpoint)
        sources = sorted(
            {
                source
                for rule in access.rules
                if rule.sources and rule.endpoint in ("*", endpoint)
                for source in rule.sources
            }
        )
        by_source = tuple(
            (source, role)
            for source in sources
            if (role := access.role_on(endpoint, source)) is not None and role != whole
        )
        out.append(Effective(endpoint, whole, by_source))
    return out


@dataclass
class GroupRow:
    name: str
    members: int
    lines: list[Line]
    exists: bool  # an IdpGroup row (else only named in the settings' map)
    pk: int | None = None


def group_rows() -> list[GroupRow]:
    """Every group with a grant, members, or a line in the settings' map."""
    from django.db.models import Count

    mapped = group_map()
    rows = {}
    for group in IdpGroup.objects.annotate(
        people=Count("membership__user", distinct=True)
    ).prefetch_related("grants"):
        lines = [_line(g, via=group.name) for g in group.grants.all()]
        rows[group.name] = GroupRow(
            group.name, group.people, lines + mapped.get(group.name, []), True, group.pk
        )
    for name, lines in mapped.items():
        rows.setdefault(name, GroupRow(name, 0, lines, False))
    return [rows[name] for name in sorted(rows)]
