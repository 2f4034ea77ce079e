"""Erasing the dashboard's own copies of sessions Hermes deleted.

A deletion is judged by what is left afterwards, in Hermes and here. For
every id Hermes verifiably deleted (a read answers 404, see ``verify``) this
removes what the dashboard kept about it: chat turns with their events
(messages, system messages, answers, tool arguments), index rows (title,
preview), the searchable transcript text of the content index, fork
records, cached transcripts and cached lineage drawings that show it. Then
SQLite is made to drop the erased bytes (``sqlite_wipe``).

The deletion request and the audit trail stay: they hold ids, codes and
fingerprints only.
"""

from __future__ import annotations

import html
import re

from django.core.cache import cache, caches
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from django.db import transaction
from django.db.models import Q

from hermes_ui import sqlite_wipe
from hermes_ui.audit.models import IdempotencyRecord
from hermes_ui.chat import turn_streams
from hermes_ui.chat.models import Turn, TurnEvent
from hermes_ui.compare.models import Verdict
from hermes_ui.endpoints import Endpoint
from hermes_ui.index import content_store
from hermes_ui.index.models import ContentMessage, IndexedSession, KnownFork
from hermes_ui.index.picture import cache_dir
from hermes_ui.lineage import render
from hermes_ui.sessions.cache import transcript_cache_key
from hermes_ui.web.links import session_url

# What the result page lists, in this order.
KINDS = {
    "turns": "chat turns",
    "turn_events": "chat turn events",
    "index_rows": "index rows",
    "content_messages": "searchable transcript messages",
    "forks": "fork records",
    "verdicts": "review verdicts",
    "change_records": "titles in recorded change results",
    "relay_streams": "relayed turn streams",
    "transcripts": "cached transcripts",
    "drawings": "cached lineage drawings",
}
_HREF = re.compile(r'href="([^"]*)"')
_DIGEST = re.compile(r"[0-9a-f]{64}")


def _mine(ep: Endpoint) -> Q:
    # Rows stamped before endpoint identities existed carry no fingerprint;
    # erasing them too errs on the side of the data subject.
    return Q(endpoint=ep.id, endpoint_fp__in=[ep.fingerprint, ""])


def _turns(ep: Endpoint, ids: list[str]):
    # A turn is a copy of the session it was posted on, sent to, or rotated into.
    about = (
        Q(requested_session_id__in=ids)
        | Q(target_session_id__in=ids)
        | Q(effective_session_id__in=ids)
    )
    return Turn.objects.filter(_mine(ep) & about)


def _forks(ep: Endpoint, ids: list[str]):
    return KnownFork.objects.filter(_mine(ep) & (Q(parent_id__in=ids) | Q(child_id__in=ids)))


def _verdicts(ep: Endpoint, ids: list[str]):
    return Verdict.objects.filter(_mine(ep) & (Q(first_id__in=ids) | Q(second_id__in=ids)))


def _forget_titles(ep: Endpoint, ids: list[str]) -> int:
    """Drop the title from recorded results of changes on or creating these sessions."""
    records = IdempotencyRecord.objects.filter(
        Q(session_id__in=ids) | Q(result__id__in=ids), endpoint=ep.id
    )
    scrubbed = 0
    for record in records:
        if isinstance(record.result, dict) and "title" in record.result:
            record.result = {k: v for k, v in record.result.items() if k != "title"}
            record.save(update_fields=["result"])
            scrubbed += 1
    return scrubbed


def local_copies(ep: Endpoint, ids) -> dict[str, int]:
    """What the database holds about these sessions now (nothing is erased)."""
    ids = sorted(set(ids))
    turns = _turns(ep, ids)
    return {
        "turns": turns.count(),
        "turn_events": TurnEvent.objects.filter(turn__in=turns).count(),
        "index_rows": IndexedSession.objects.filter(_mine(ep), session_id__in=ids).count(),
        "content_messages": ContentMessage.objects.filter(_mine(ep), session_id__in=ids).count(),
        "forks": _forks(ep, ids).count(),
        "verdicts": _verdicts(ep, ids).count(),
    }


def erase(ep: Endpoint, ids, *, related=()) -> dict[str, int]:
    """Erase every local copy of ``ids`` (sessions Hermes deleted); counts per kind.

    ``related`` are ids whose cached transcript may show a deleted one (a
    compression root resolves to its tip): only their cache entry is dropped.
    Idempotent: a second call finds nothing and returns zeros.
    """
    ids = sorted(set(ids))
    counts = dict.fromkeys(KINDS, 0)
    if not ids:
        return counts
    turn_ids = list(_turns(ep, ids).values_list("pk", flat=True))
    with transaction.atomic():
        _, turns = _turns(ep, ids).delete()  # cascades to TurnEvent
        counts["turns"] = turns.get(Turn._meta.label, 0)
        counts["turn_events"] = turns.get(TurnEvent._meta.label, 0)
        counts["index_rows"], _ = IndexedSession.objects.filter(
            _mine(ep), session_id__in=ids
        ).delete()
        counts["forks"], _ = _forks(ep, ids).delete()
        counts["verdicts"], _ = _verdicts(ep, ids).delete()
        counts["change_records"] = _forget_titles(ep, ids)
        # The transcript index: what was read for these ids or stored under them.
        _, counts["content_messages"] = content_store.erase(_mine(ep), ids)
    if counts["content_messages"]:
        content_store.compact()  # no deleted terms left in the full-text index
    sqlite_wipe.checkpoint()
    counts["relay_streams"] = turn_streams.forget(turn_ids)
    counts["transcripts"] = sum(
        bool(cache.delete(transcript_cache_key(ep, sid))) for sid in {*ids, *related}
    )
    counts["drawings"] = _erase_drawings({session_url(ep.id, sid) for sid in ids})
    return counts


def _erase_drawings(urls: set[str]) -> int:
    """Drop every cached lineage SVG that draws one of these sessions.

    Every drawn session node links to its page, so a drawing shows a session
    exactly when it holds a link to that session's URL. Both tiers are
    searched: the files under ``data/lineage-svg/`` and the ``lineage`` cache.
    """
    svgs = caches[render.CACHE_ALIAS]
    erased: set[str] = set()
    for path in cache_dir().glob("*.svg"):
        try:
            shown = _shows(path.read_text(encoding="utf-8"), urls)
            if shown:
                path.unlink(missing_ok=True)
        except OSError:
            continue
        if shown:
            svgs.delete(path.stem)
            erased.add(path.stem)
    for digest in _cached_digests(svgs):
        svg = svgs.get(digest)
        if isinstance(svg, str) and _shows(svg, urls):
            svgs.delete(digest)
            erased.add(digest)
    return len(erased)


def _shows(svg: str, urls: set[str]) -> bool:
    return any(html.unescape(href) in urls for href in _HREF.findall(svg))


def _cached_digests(svgs) -> list[str]:
    """The digests held by the lineage cache.

    Django's cache API cannot list keys, so this asks the two backends that
    ``hermes_ui.backends`` configures directly; keys are ``prefix:version:digest``.
    """
    if isinstance(svgs, LocMemCache):
        with svgs._lock:
            keys = list(svgs._cache)
    elif isinstance(svgs, RedisCache):
        client = svgs._cache.get_client(None)
        keys = [key.decode() for key in client.scan_iter(match=svgs.make_key("*"))]
    else:
        return []
    digests = (key.rsplit(":", 1)[-1] for key in keys)
    return [digest for digest in digests if _DIGEST.fullmatch(digest)]
