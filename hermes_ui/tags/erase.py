"""Tags on a session Hermes deleted, erased (``platform.erasers``)."""

from __future__ import annotations

from hermes_ui.platform import erasers
from hermes_ui.tags.models import SessionTag


def _rows(scope, ids: list[str]):
    return SessionTag.objects.filter(erasers.mine(scope), session_id__in=ids)


def held(scope, ids: list[str]) -> dict[str, int]:
    return {"session_tags": _rows(scope, ids).count()}


def erase(scope, ids: list[str]) -> dict[str, int]:
    deleted, _ = _rows(scope, ids).delete()
    return {"session_tags": deleted}
