"""Review data naming a session Hermes deleted, erased (``deletion.erasers``).

Labels, notes and corrections are copies of transcript content; queue items
(with their reviews and mentions, which cascade) name the session. A label
given in a review of another item is erased too when it is about the session.
"""

from __future__ import annotations

from hermes_ui.platform import erasers
from hermes_ui.review.models import Correction, Item, Label, Note

KINDS = {"review_items": Item, "labels": Label, "notes": Note, "corrections": Correction}


def _rows(model, scope, ids: list[str]):
    return model.objects.filter(erasers.mine(scope), session_id__in=ids)


def held(scope, ids: list[str]) -> dict[str, int]:
    return {kind: _rows(model, scope, ids).count() for kind, model in KINDS.items()}


def erase(scope, ids: list[str]) -> dict[str, int]:
    counts = held(scope, ids)  # labels and mentions also go with their item or note
    for model in reversed(KINDS.values()):
        _rows(model, scope, ids).delete()
    return counts
