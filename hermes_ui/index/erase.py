"""What the index keeps about a session, erased when Hermes deleted it (see ``hermes_ui.erasers``).

Its row (title, preview), the searchable transcript text of the content
index, the fork records naming it, and the cached lineage drawings that show
it: the files under ``data/lineage-svg/`` and the ``lineage`` cache.
"""

from __future__ import annotations

import html
import re

from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from django.db.models import Q

from hermes_ui import erasers
from hermes_ui.index import content_store
from hermes_ui.index.models import ContentMessage, IndexedSession, KnownFork
from hermes_ui.index.picture import cache_dir
from hermes_ui.lineage import render
from hermes_ui.web.links import session_url

_HREF = re.compile(r'href="([^"]*)"')
_DIGEST = re.compile(r"[0-9a-f]{64}")


def _rows(scope, ids: list[str]):
    return IndexedSession.objects.filter(erasers.mine(scope), session_id__in=ids)


def _forks(scope, ids: list[str]):
    return KnownFork.objects.filter(
        erasers.mine(scope) & (Q(parent_id__in=ids) | Q(child_id__in=ids))
    )


def held_rows(scope, ids: list[str]) -> dict[str, int]:
    return {"index_rows": _rows(scope, ids).count()}


def erase_rows(scope, ids: list[str]) -> dict[str, int]:
    deleted, _ = _rows(scope, ids).delete()
    return {"index_rows": deleted}


def held_content(scope, ids: list[str]) -> dict[str, int]:
    mine = ContentMessage.objects.filter(erasers.mine(scope), session_id__in=ids)
    return {"content_messages": mine.count()}


def erase_content(scope, ids: list[str]) -> dict[str, int]:
    """What was read for these ids or stored under them."""
    _, dropped = content_store.erase(erasers.mine(scope), ids)
    if dropped:
        erasers.after_commit(content_store.compact)  # no deleted terms left in the FTS index
    return {"content_messages": dropped}


def held_forks(scope, ids: list[str]) -> dict[str, int]:
    return {"forks": _forks(scope, ids).count()}


def erase_forks(scope, ids: list[str]) -> dict[str, int]:
    deleted, _ = _forks(scope, ids).delete()
    return {"forks": deleted}


def erase_drawings(scope, ids: list[str]) -> dict[str, int]:
    urls = {session_url(scope.id, sid) for sid in ids}
    erasers.after_commit(lambda: {"drawings": _erase_drawings(urls)})
    return {}


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
    for digest in cached_digests(svgs):
        svg = svgs.get(digest)
        if isinstance(svg, str) and _shows(svg, urls):
            svgs.delete(digest)
            erased.add(digest)
    return len(erased)


def _shows(svg: str, urls: set[str]) -> bool:
    return any(html.unescape(href) in urls for href in _HREF.findall(svg))


def cached_digests(svgs) -> list[str]:
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
