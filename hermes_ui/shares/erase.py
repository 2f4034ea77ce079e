"""Share links of a session Hermes deleted, erased with their snapshots (``platform.erasers``).

A share of another session that lists an erased one in its lineage keeps the
link and loses that entry: its id and masked title.
"""

from __future__ import annotations

from hermes_ui.platform import erasers
from hermes_ui.shares.models import Share


def _rows(scope, ids: list[str]):
    return Share.objects.filter(erasers.mine(scope), session_id__in=ids)


def _naming(scope, ids: list[str]):
    """Other sessions' shares whose lineage lists one of ``ids``, each with what stays."""
    wanted = set(ids)
    others = (
        Share.objects.filter(erasers.mine(scope))
        .filter(erasers.text_names("snapshot", ids))
        .exclude(session_id__in=ids)
    )
    for share in others:
        entries = (share.snapshot or {}).get("lineage") or []
        kept = [entry for entry in entries if entry.get("id") not in wanted]
        if len(kept) != len(entries):
            yield share, kept, len(entries) - len(kept)


def held(scope, ids: list[str]) -> dict[str, int]:
    entries = sum(n for _, _, n in _naming(scope, ids))
    return {"shares": _rows(scope, ids).count(), "share_lineage_entries": entries}


def erase(scope, ids: list[str]) -> dict[str, int]:
    deleted, _ = _rows(scope, ids).delete()
    entries = 0
    for share, kept, n in list(_naming(scope, ids)):
        share.snapshot = {**share.snapshot, "lineage": kept}
        share.save(update_fields=["snapshot"])
        entries += n
    return {"shares": deleted, "share_lineage_entries": entries}
