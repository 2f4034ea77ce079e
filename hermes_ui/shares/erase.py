"""Share links of a session Hermes deleted, erased with their snapshots (``platform.erasers``)."""

from __future__ import annotations

from hermes_ui.platform import erasers
from hermes_ui.shares.models import Share


def _rows(scope, ids: list[str]):
    return Share.objects.filter(erasers.mine(scope), session_id__in=ids)


def held(scope, ids: list[str]) -> dict[str, int]:
    return {"shares": _rows(scope, ids).count()}


def erase(scope, ids: list[str]) -> dict[str, int]:
    deleted, _ = _rows(scope, ids).delete()
    return {"shares": deleted}
