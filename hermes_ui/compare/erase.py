"""Review verdicts naming a session Hermes deleted, erased (``platform.erasers``).

A verdict holds the reviewer's reason about the two sessions it compares.
"""

from __future__ import annotations

from django.db.models import Q

from hermes_ui.compare.models import Verdict
from hermes_ui.platform import erasers


def _verdicts(scope, ids: list[str]):
    about = Q(first_id__in=ids) | Q(second_id__in=ids)
    return Verdict.objects.filter(erasers.mine(scope) & about)


def held(scope, ids: list[str]) -> dict[str, int]:
    return {"verdicts": _verdicts(scope, ids).count()}


def erase(scope, ids: list[str]) -> dict[str, int]:
    deleted, _ = _verdicts(scope, ids).delete()
    return {"verdicts": deleted}
