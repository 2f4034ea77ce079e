"""DOT to SVG with Graphviz, cached by a digest of the DOT source.

The DOT source is a pure function of the lineage's content (rows, kinds,
current session, tip, folded groups, links), so its SHA-256 is the cache
key: an unchanged lineage is served from Django's ``lineage`` cache (process
memory by default, Redis with ``REDIS_URL``, shared by every worker) or from
``cache_dir`` without running ``dot``. The disk copy stays as a second tier:
it survives a restart of the embedded setup, where the cache is in memory,
and an eviction from Redis costs a file read instead of a Graphviz run.

The SVG is inlined into pages so its links work, which makes it markup the
dashboard vouches for. ``checked_svg`` therefore parses every rendering and
refuses anything but plain shapes, text and same-site links before it is
cached; a refusal falls back to the HTML list like a missing ``dot``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.core.exceptions import ImproperlyConfigured

DISK_ENTRIES = 500
CACHE_ALIAS = "lineage"
_lock = threading.Lock()
runs = 0  # times ``dot`` actually ran in this process (tests and the benchmark read it)

_SVG_NS = "{http://www.w3.org/2000/svg}"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_ALLOWED_TAGS = {"svg", "g", "title", "polygon", "polyline", "path", "ellipse", "text", "a"}
_PROLOG = re.compile(r"\A.*?(?=<svg\b)", re.S)
_STRIP = re.compile(r"<!--.*?-->|<title>[^<]*</title>", re.S)


class UnsafeSvg(ValueError):
    pass


@dataclass
class Rendered:
    digest: str
    svg: str | None = None
    from_cache: bool = False
    error: str | None = None


def digest_of(dot_source: str) -> str:
    return hashlib.sha256(dot_source.encode("utf-8")).hexdigest()


def find_dot(configured: str | None = None) -> str | None:
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which("dot")


def render(
    dot_source: str,
    *,
    dot_path: str | None = None,
    timeout: float = 20.0,
    cache_dir: Path | None = None,
) -> Rendered:
    digest = digest_of(dot_source)
    cached = _cached(digest, cache_dir)
    if cached is not None:
        return Rendered(digest, cached, from_cache=True)
    binary = find_dot(dot_path)
    if binary is None:
        return Rendered(digest, error="Graphviz (dot) is not installed on this server.")
    try:
        svg = checked_svg(_run_dot(binary, dot_source, timeout))
    except subprocess.TimeoutExpired:
        return Rendered(digest, error=f"Graphviz took longer than {timeout:.0f} s.")
    except (OSError, subprocess.CalledProcessError):
        return Rendered(digest, error="Graphviz failed to draw this lineage.")
    except UnsafeSvg:
        return Rendered(digest, error="Graphviz produced a drawing the dashboard refuses to show.")
    _store(digest, svg, cache_dir)
    return Rendered(digest, svg)


def _run_dot(binary: str, dot_source: str, timeout: float) -> str:
    global runs
    done = subprocess.run(
        [binary, "-Tsvg"],
        input=dot_source.encode("utf-8"),
        capture_output=True,
        timeout=timeout,
        check=True,
    )
    with _lock:
        runs += 1
    return done.stdout.decode("utf-8", "replace")


def checked_svg(raw: str) -> str:
    """The SVG element alone, verified to hold only shapes, text and local links."""
    svg = _STRIP.sub("", _PROLOG.sub("", raw, count=1)).strip()
    try:
        root = ET.fromstring(svg)  # noqa: S314 - our own dot output, no entities/DTD left
    except ET.ParseError as exc:
        raise UnsafeSvg("not well-formed") from exc
    for element in root.iter():
        tag = element.tag.removeprefix(_SVG_NS)
        if tag not in _ALLOWED_TAGS:
            raise UnsafeSvg(f"element {tag!r}")
        for name, value in element.attrib.items():
            if name.lower().startswith("on") or "javascript:" in value.lower():
                raise UnsafeSvg("script attribute")
            if name.lower() == "style":
                # The Content-Security-Policy (style-src 'self') blocks inline styles.
                raise UnsafeSvg("inline style")
            if name in (_XLINK_HREF, "href") and not value.startswith("/"):
                raise UnsafeSvg("foreign link")
            if "//" in value and name in (_XLINK_HREF, "href"):
                raise UnsafeSvg("foreign link")
    return svg


def _cached(digest: str, cache_dir: Path | None) -> str | None:
    svg = caches[CACHE_ALIAS].get(digest)
    if svg is not None:
        return svg
    if cache_dir is None:
        return None
    try:
        svg = (Path(cache_dir) / f"{digest}.svg").read_text(encoding="utf-8")
    except OSError:
        return None
    _remember(digest, svg)
    return svg


def _remember(digest: str, svg: str) -> None:
    caches[CACHE_ALIAS].set(digest, svg)


def _store(digest: str, svg: str, cache_dir: Path | None) -> None:
    _remember(digest, svg)
    if cache_dir is None:
        return
    folder = Path(cache_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # Write then rename, so a reader in another process never sees half a file.
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=folder, delete=False) as f:
            f.write(svg)
        os.replace(f.name, folder / f"{digest}.svg")
        files = sorted(folder.glob("*.svg"), key=lambda p: p.stat().st_mtime)
        for old in files[:-DISK_ENTRIES]:
            old.unlink(missing_ok=True)
    except OSError:
        pass  # the disk cache is an optimisation; the cache still holds it


def clear_memory() -> None:
    """Forget every cached drawing (tests and benchmarks: "a new process").

    With Redis only the keys under the cache's own ``KEY_PREFIX`` go: the
    cache's ``clear()`` would empty the whole database, which also holds the
    chat relay's leases and streams and the transcript cache.
    """
    cache = caches[CACHE_ALIAS]
    if not isinstance(cache, RedisCache):
        cache.clear()
        return
    if not cache.key_prefix:
        raise ImproperlyConfigured(f"the {CACHE_ALIAS!r} Redis cache needs a KEY_PREFIX")
    client = cache._cache.get_client(write=True)
    pattern = re.sub(r"([*?\[\]\\])", r"\\\1", cache.key_prefix) + ":*"  # glob-escaped
    batch: list = []
    for key in client.scan_iter(match=pattern, count=500):
        batch.append(key)
        if len(batch) >= 500:
            client.delete(*batch)
            batch.clear()
    if batch:
        client.delete(*batch)
