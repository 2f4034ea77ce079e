"""Erasure of the lineage page's copies: cached drawings that show an erased session.

Registered from ``LineagePageConfig.ready()`` as the ``drawings`` eraser.
"""

from __future__ import annotations

import html
import re

from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache

from hermes_ui.lineage import render
from hermes_ui.lineage.picture import cache_dir
from hermes_ui.platform import erasers
from hermes_ui.web.links import session_url

_HREF = re.compile(r'href="([^"]*)"')
_DIGEST = re.compile(r"[0-9a-f]{64}")


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
    ``hermes_ui.platform.backends`` configures directly; keys are ``prefix:version:digest``.
    """
    if isinstance(svgs, LocMemCache):
        with svgs._lock:  # type: ignore[attr-defined]
            keys = list(svgs._cache)  # type: ignore[attr-defined]
    elif isinstance(svgs, RedisCache):
        client = svgs._cache.get_client(None)
        keys = [key.decode() for key in client.scan_iter(match=svgs.make_key("*"))]
    else:
        return []
    digests = (key.rsplit(":", 1)[-1] for key in keys)
    return [digest for digest in digests if _DIGEST.fullmatch(digest)]
