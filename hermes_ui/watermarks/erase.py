"""Read watermarks of a session Hermes deleted, erased (``platform.erasers``)."""

from __future__ import annotations

from hermes_ui.platform import erasers
from hermes_ui.watermarks.models import Watermark


def _rows(scope, ids: list[str]):
    return Watermark.objects.filter(erasers.mine(scope), session_id__in=ids)


def held(scope, ids: list[str]) -> dict[str, int]:
    return {"watermarks": _rows(scope, ids).count()}


def erase(scope, ids: list[str]) -> dict[str, int]:
    deleted, _ = _rows(scope, ids).delete()
    return {"watermarks": deleted}
