"""Notices about a session Hermes deleted, erased (``platform.erasers``)."""

from __future__ import annotations

from hermes_ui.notifications.models import Notice
from hermes_ui.platform import erasers


def _rows(scope, ids: list[str]):
    return Notice.objects.filter(erasers.mine(scope), session_id__in=ids)


def held(scope, ids: list[str]) -> dict[str, int]:
    return {"notices": _rows(scope, ids).count()}


def erase(scope, ids: list[str]) -> dict[str, int]:
    deleted, _ = _rows(scope, ids).delete()
    return {"notices": deleted}
