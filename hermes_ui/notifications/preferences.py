"""Each person's mode per kind: stored choices over the kinds' defaults."""

from __future__ import annotations

from hermes_ui.notifications.kinds import KINDS
from hermes_ui.notifications.models import Preference


def modes(user) -> dict[str, str]:
    chosen = dict(Preference.objects.filter(user=user).values_list("kind", "mode"))
    return {key: chosen.get(key, kind.default) for key, kind in KINDS.items()}


def mode(user_pk: int, kind: str) -> str:
    found = Preference.objects.filter(user_id=user_pk, kind=kind).values_list("mode", flat=True)
    return found.first() or KINDS[kind].default


def save(user, chosen: dict[str, str]) -> None:
    for kind, value in chosen.items():
        if not value:
            continue
        Preference.objects.update_or_create(user=user, kind=kind, defaults={"mode": value})
