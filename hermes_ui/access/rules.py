"""The one rule: what a person may see and do, per endpoint and source.

Every view, API route, search, mail and stream asks this module; none filters
by endpoint on its own. ``access_of(user)`` reads the person's grants (their
own, their groups', and what the settings' group map gives their groups) and
keeps the answer on the user object for the request. An API token limited to
some endpoints narrows it (``Access.limited_to``).
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Q

from hermes_ui.access.models import ADMIN, ALL, REVIEWER, ROLES, SUPPORT, Grant, IdpGroup
from hermes_ui.platform.prepared import Prepared

__all__ = ["ADMIN", "ALL", "REVIEWER", "ROLES", "SUPPORT", "Access", "access_of", "forget"]

RANK = {role: rank for rank, role in enumerate(ROLES, start=1)}
_CACHE = "_hermes_access"
# Where the door (access.scope) leaves the source of the session a request names.
SOURCE_ATTR = "hermes_session_source"
# Every page asks it: compiled once (platform.prepared).
_GRANTS = Prepared(
    lambda user_id: Grant.objects.filter(
        Q(user=user_id) | Q(group__membership__user=user_id)
    ).values_list("endpoint", "role", "sources")
)
# The person's identity-provider groups, for the settings' group map (HERMES_UI_GROUP_ROLES).
_GROUPS = Prepared(
    lambda user_id: IdpGroup.objects.filter(membership__user=user_id).values_list("name")
)


@dataclass(frozen=True)
class Rule:
    endpoint: str  # an endpoint id or ALL
    rank: int
    sources: frozenset[str] | None  # None: every source

    def covers(self, endpoint: str, source: str | None) -> bool:
        if self.endpoint != ALL and self.endpoint != endpoint:
            return False
        return self.sources is None or (source is not None and source in self.sources)


@dataclass(frozen=True)
class Access:
    rules: tuple[Rule, ...]
    # An API token's endpoint limit: None for no limit.
    only: frozenset[str] | None = None

    # --- one endpoint ------------------------------------------------------------
    def role_on(self, endpoint: str, source: str | None = None, *, any_source=False) -> str | None:
        """The highest role on ``endpoint`` for a session of ``source``.

        ``any_source=True`` answers for the endpoint as a whole: the highest
        role of any grant there, source-limited or not (to show the endpoint
        and its pages; each session is still checked with its source).
        """
        if self.only is not None and endpoint not in self.only:
            return None
        best = 0
        for rule in self.rules:
            if rule.rank <= best:
                continue
            if any_source:
                if rule.endpoint in (ALL, endpoint):
                    best = rule.rank
            elif rule.covers(endpoint, source):
                best = rule.rank
        return ROLES[best - 1] if best else None

    def has(
        self, needed: str, endpoint: str, source: str | None = None, *, any_source=False
    ) -> bool:
        role = self.role_on(endpoint, source, any_source=any_source)
        return role is not None and RANK[role] >= RANK[needed]

    def sees(self, endpoint: str, source: str | None = None) -> bool:
        """May this person open a session of ``source`` on ``endpoint``?"""
        return self.role_on(endpoint, source) is not None

    def source_limited(self, endpoint: str) -> bool:
        """True when what this person sees on ``endpoint`` depends on a session's source."""
        return (
            self.role_on(endpoint) is None and self.role_on(endpoint, any_source=True) is not None
        )

    def depends_on_source(self, endpoint: str) -> bool:
        """True when a session's source can change this person's role on ``endpoint``."""
        whole = self.role_on(endpoint)
        floor = RANK[whole] if whole is not None else 0
        return (self.only is None or endpoint in self.only) and any(
            r.sources and r.endpoint in (ALL, endpoint) and r.rank > floor for r in self.rules
        )

    # --- every endpoint ------------------------------------------------------------
    def endpoint_ids(self, needed: str = SUPPORT) -> list[str]:
        """The configured endpoints where this person has ``needed`` on some source."""
        return [ep for ep in settings.HERMES_ENDPOINTS if self.has(needed, ep, any_source=True)]

    def highest(self) -> str | None:
        """The highest role anywhere (to decide whether to show a feature at all)."""
        reach = set(settings.HERMES_ENDPOINTS) if self.only is None else set(self.only)
        ranks = [
            r.rank
            for r in self.rules
            if (r.endpoint == ALL and (self.only is None or reach)) or r.endpoint in reach
        ]
        return ROLES[max(ranks) - 1] if ranks else None

    def has_somewhere(self, needed: str) -> bool:
        role = self.highest()
        return role is not None and RANK[role] >= RANK[needed]

    @property
    def instance_admin(self) -> bool:
        """Admin on ``*`` with no source limit: endpoints, access, webhooks, SSO links."""
        return self.only is None and any(
            r.endpoint == ALL and r.rank == RANK[ADMIN] and r.sources is None for r in self.rules
        )

    @property
    def everything(self) -> bool:
        """Sees every session of every endpoint: filters can be skipped (the fast path)."""
        return self.only is None and any(
            r.endpoint == ALL and r.sources is None for r in self.rules
        )

    def session_q(
        self,
        needed: str = SUPPORT,
        *,
        endpoint: str = "endpoint",
        source: str = "source",
        only_endpoint: str | None = None,
    ) -> Q:
        """A filter for rows that name a session by endpoint and source fields.

        ``Model.objects.filter(access.session_q())`` keeps the rows this person
        may see with at least ``needed``; pass the field names of the model
        (``endpoint="session__endpoint"``...). Matches nothing for no grant.
        ``only_endpoint``: the rows are of that endpoint already, so the filter is
        just its sources (one range of an index, not an OR across endpoints).
        """
        whole: list[str] = []
        partial: dict[str, set[str]] = {}
        endpoints = self.endpoint_ids(needed)
        if only_endpoint is not None:
            endpoints = [ep for ep in endpoints if ep == only_endpoint]
        for ep in endpoints:
            if self.has(needed, ep):
                whole.append(ep)
                continue
            for rule in self.rules:
                if rule.rank >= RANK[needed] and rule.endpoint in (ALL, ep) and rule.sources:
                    partial.setdefault(ep, set()).update(rule.sources)
        if only_endpoint is not None:
            if whole:
                return Q()
            sources = partial.get(only_endpoint)
            return Q(**{f"{source}__in": sorted(sources)}) if sources else Q(pk__in=[])
        q = Q(**{f"{endpoint}__in": whole}) if whole else Q(pk__in=[])
        for ep, sources in partial.items():
            q |= Q(**{endpoint: ep, f"{source}__in": sorted(sources)})
        return q

    def endpoint_q(self, needed: str = SUPPORT, *, endpoint: str = "endpoint") -> Q:
        """A filter for rows that name only an endpoint (jobs, audit entries, usage)."""
        ids = self.endpoint_ids(needed)
        return Q(**{f"{endpoint}__in": ids}) if ids else Q(pk__in=[])

    def limited_to(self, endpoints) -> Access:
        """This access, but only on ``endpoints`` (an API token's limit)."""
        keep = frozenset(endpoints)
        only = keep if self.only is None else self.only & keep
        return Access(self.rules, only)


NOBODY = Access(())


def _read(user) -> Access:
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return NOBODY
    if user.is_superuser:
        return Access((Rule(ALL, RANK[ADMIN], None),))
    found = [
        (endpoint, role, _sources(sources)) for endpoint, role, sources in _GRANTS.rows(user.pk)
    ]
    mapped = getattr(settings, "HERMES_UI_GROUP_ROLES", None)
    if mapped:
        for (name,) in _GROUPS.rows(user.pk):
            found.extend(mapped.get(name, ()))
    rules = {
        Rule(endpoint, RANK[role], frozenset(sources) if sources else None)
        for endpoint, role, sources in found
        if role in RANK
    }
    return Access(tuple(sorted(rules, key=lambda r: (-r.rank, r.endpoint))))


def _sources(raw) -> list[str]:
    if isinstance(raw, str):  # a raw query returns JSON as text on some backends
        import json

        raw = json.loads(raw or "[]")
    return [str(s) for s in raw or ()]


def access_of(user) -> Access:
    """The person's access, read once per request (kept on the user object)."""
    if user is None:
        return NOBODY
    cached = getattr(user, _CACHE, None)
    if cached is None:
        cached = _read(user)
        with suppress(AttributeError):  # AnonymousUser-like objects without a __dict__
            setattr(user, _CACHE, cached)
    return cached


def forget(user) -> None:
    """Drop the kept answer after a grant changed within this request."""
    if user is not None and hasattr(user, _CACHE):
        delattr(user, _CACHE)


def narrow(user, endpoints) -> None:
    """Limit the person's access for this request to ``endpoints`` (an API token's limit)."""
    setattr(user, _CACHE, access_of(user).limited_to(endpoints))


def role_here(request, endpoint: str) -> str | None:
    """The person's role for this request's endpoint (and session, when the door saw one)."""
    access = access_of(request.user)
    source = getattr(request, SOURCE_ATTR, None)
    if source is not None:
        return access.role_on(endpoint, source)
    # No session (or none whose source matters): the role on the whole endpoint; a
    # grant limited to some sources counts only for a person who has no other there.
    whole = access.role_on(endpoint)
    return whole if whole is not None else access.role_on(endpoint, any_source=True)
