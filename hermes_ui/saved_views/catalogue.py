"""The views a user may pick: built-ins, their own, and those others shared."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlencode

from django.db.models import Q
from django.urls import reverse

from hermes_ui.access.rules import access_of
from hermes_ui.index.models import IndexedSession
from hermes_ui.saved_views.models import DefaultView, SavedView
from hermes_ui.search import facets, visibility
from hermes_ui.web import params

ALL = "all"
ERROR_REASONS = ("error", "failed", "orphaned_compression")
FIELDS = ("q", "source", "kind", "state")


@dataclass(frozen=True)
class View:
    key: str  # "builtin:new", "view:12"
    name: str
    q: str = ""
    source: str = ""
    kind: str = ""
    state: str = ""
    shared: bool = False
    builtin: bool = False
    owner: str = ""  # who saved it (shared views of others show it)
    saved: SavedView | None = None

    @property
    def query(self) -> dict:
        found = {name: getattr(self, name) for name in FIELDS if getattr(self, name)}
        return {**found, "view": self.key}

    def url(self, endpoint_id: str) -> str:
        return (
            reverse("session_list", kwargs={"endpoint": endpoint_id}) + "?" + urlencode(self.query)
        )


_BUILTINS = (
    ("unreviewed", "Unreviewed", "reviewed:no", "reviewed"),
    ("errors", "Closed with errors", "reason:" + ",".join(ERROR_REASONS), None),
    ("new", "New since I looked", "new:yes", "new"),
)


def builtins() -> list[View]:
    return [
        View(f"builtin:{key}", name, q=q, shared=True, builtin=True)
        for key, name, q, needs in _BUILTINS
        if needs is None or facets.get(needs) is not None
    ]


def of_saved(row: SavedView, user=None) -> View:
    mine = user is not None and row.owner_id == user.pk
    return View(
        f"view:{row.pk}",
        row.name,
        q=row.q,
        source=row.source,
        kind=row.kind,
        state=row.state,
        shared=row.shared,
        owner="" if mine else row.owner.get_username(),
        saved=row,
    )


def visible(user) -> list[View]:
    """Built-ins, then the user's own views, then the views others shared.

    A shared view naming a session or source the user may not see (its id, its
    exact title, its source) is left out for them: a name or a search is text
    its author typed, and might be the very thing hidden from them. Any view
    that is shown lists only what they may see (the search filters every row).
    """
    rows = SavedView.objects.filter(Q(owner=user) | Q(shared=True)).select_related("owner")
    own = [of_saved(r, user) for r in rows if r.owner_id == user.pk]
    others = [of_saved(r, user) for r in rows if r.owner_id != user.pk]
    others = [v for v in others if not reveals(v, user)]
    return [*builtins(), *own, *others]


_WORD = re.compile(r"[^\s:,\"'()]+")


def reveals(view: View, user) -> bool:
    """Does ``view`` (a shared view of someone else) name what ``user`` may not see?"""
    if not visibility.limits(user):
        return False
    texts = [t.strip() for t in (view.name, view.q) if t and t.strip()]
    texts += [t.strip() for t in re.findall(r'"([^"]+)"', view.q or "")]
    words = {w for text in (view.name, view.q, view.source) for w in _WORD.findall(text or "")}
    if view.source:
        words.add(view.source)
    if not words and not texts:
        return False
    present = IndexedSession.objects.filter(vanished_at__isnull=True)
    mine = access_of(user).session_q()
    # A source the user sees somewhere is no secret to them, even if hidden elsewhere.
    seen = set(present.filter(mine, source__in=words).values_list("source", flat=True))
    named = Q(session_id__in=words) | Q(source__in=words - seen)
    for text in texts:
        named |= Q(title__iexact=text)
    return present.exclude(mine).filter(named).exists()


def find(user, key: str) -> View | None:
    """The view ``key`` if this user may see it."""
    if key.startswith("builtin:"):
        return next((v for v in builtins() if v.key == key), None)
    if key.startswith("view:") and params.whole(key[5:]) is not None:
        row = (
            SavedView.objects.filter(Q(owner=user) | Q(shared=True), pk=int(key[5:]))
            .select_related("owner")
            .first()
        )
        if row is None:
            return None
        view = of_saved(row, user)
        return None if row.owner_id != user.pk and reveals(view, user) else view
    return None


def default_key(user) -> str:
    return DefaultView.objects.filter(user=user).values_list("key", flat=True).first() or ""


def start(request, endpoint) -> dict | None:
    """The user's default view as the index page's query, or None: every session."""
    user = request.user
    if not user.is_authenticated:
        return None
    key = default_key(user)
    view = find(user, key) if key and key != ALL else None
    return view.query if view else None
