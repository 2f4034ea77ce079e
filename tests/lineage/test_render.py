"""Rendering with Graphviz: the content-digest cache, refusals and the missing-dot case."""

import shutil

import pytest

from hermes_ui.lineage import render

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")
DOT = 'digraph lineage { n0 [label=<a> URL="/e/local/sessions/a/"]; n1; n0 -> n1; }\n'


@needs_dot
def test_an_unchanged_lineage_renders_from_the_memory_cache():
    before = render.runs
    first = render.render(DOT)
    again = render.render(DOT)
    assert (first.from_cache, again.from_cache) == (False, True)
    assert again.svg == first.svg and render.runs == before + 1
    changed = render.render(DOT.replace("<a>", "<b>"))
    assert changed.from_cache is False and render.runs == before + 2


@needs_dot
def test_the_disk_cache_survives_a_restart(tmp_path):
    render.render(DOT, cache_dir=tmp_path)
    render.clear_memory()  # a new process
    before = render.runs
    again = render.render(DOT, cache_dir=tmp_path)
    assert again.from_cache and render.runs == before
    assert (tmp_path / f"{render.digest_of(DOT)}.svg").exists()


def test_without_dot_there_is_no_svg_and_a_reason(tmp_path):
    missing = tmp_path / "no-such-dot"
    result = render.render(DOT, dot_path=str(missing))
    assert result.svg is None and "not installed" in result.error


def test_a_dot_that_fails_or_hangs_is_a_reason_not_a_crash(tmp_path):
    failing = tmp_path / "dot"
    failing.write_text("#!/bin/sh\nexit 3\n")
    failing.chmod(0o755)
    assert "failed" in render.render(DOT, dot_path=str(failing)).error
    failing.write_text("#!/bin/sh\nsleep 5\n")
    assert "longer than" in render.render(DOT + " ", dot_path=str(failing), timeout=0.2).error


@pytest.mark.parametrize(
    "evil",
    [
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg"><g onload="alert(1)"/></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
        '<a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
        '<a xlink:href="//evil.example/"><text>x</text></a></svg>',
        '<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><p>x</p></foreignObject></svg>',
        "<svg><g>not closed</svg>",
        '<svg xmlns="http://www.w3.org/2000/svg"><g style="fill:red"/></svg>',
    ],
)
def test_anything_but_shapes_text_and_local_links_is_refused(evil):
    with pytest.raises(render.UnsafeSvg):
        render.checked_svg(evil)


@needs_dot
def test_the_checked_svg_keeps_the_drawing_and_drops_prolog_and_comments():
    svg = render.render(DOT).svg
    assert svg.startswith("<svg") and "<!--" not in svg and "<!DOCTYPE" not in svg
    assert "<title>" not in svg  # node names would show as tooltips
    assert 'xlink:href="/e/local/sessions/a/"' in svg


def test_clearing_the_drawings_keeps_every_other_redis_key(with_redis):
    from django.core.cache import caches

    with_redis.set("hui:chat:turn:1:owner", "someone-else")  # a relay lease
    caches["default"].set("transcript", "kept")
    caches["lineage"].set("digest-a", "<svg/>")
    caches["lineage"].set("digest-b", "<svg/>")
    render.clear_memory()
    assert caches["lineage"].get("digest-a") is None and caches["lineage"].get("digest-b") is None
    assert with_redis.get("hui:chat:turn:1:owner") == b"someone-else"
    assert caches["default"].get("transcript") == "kept"
