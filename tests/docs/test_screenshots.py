"""The docs' screenshots: each page still has the element its picture is centred on.

Under ``make test`` every shot of ``devtools/screenshot_specs.py`` is opened in
Chromium as its role and must show its element; ``make screenshots`` runs the
same test with ``HERMES_UI_SCREENSHOTS=docs/images`` and writes the pictures.
"""

import io
import os
from pathlib import Path

import pytest
from PIL import Image

from devtools.screenshot_specs import SHOTS, Shot
from tests.support.browser import ARTIFACTS, REPO

pytestmark = [pytest.mark.peer, pytest.mark.browser]
OUT = os.environ.get("HERMES_UI_SCREENSHOTS")


@pytest.fixture(scope="module")
def screenshot_server(dashboard):
    """The index pages show sessions: one full sync of the demo seed first."""
    dashboard.manage("index_sync", "--full")
    return dashboard


def _clip(page, shot: Shot, box) -> dict:
    size = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
    )
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    x = min(max(0, cx - shot.width / 2), max(0, size[0] - shot.width))
    # An element taller than the picture is shown from its top, with what leads to it.
    top = box["y"] - 160 if box["height"] > shot.height - 160 else cy - shot.height / 2
    y = min(max(0, top), max(0, size[1] - shot.height))
    return {"x": x, "y": y, "width": min(shot.width, size[0]), "height": min(shot.height, size[1])}


def _save(png: bytes, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not OUT:  # make test: the picture is a by-product, quantizing it would only cost
        path.write_bytes(png)
        return
    image = Image.open(io.BytesIO(png)).convert("RGB")
    # A palette of 256 colours keeps UI pictures sharp at a fraction of the size.
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


@pytest.mark.parametrize("shot", SHOTS, ids=[s.name for s in SHOTS])
def test_the_docs_picture_still_shows_its_element(
    chromium, screenshot_server, dashboard_logins, shot
):
    from tests.support.browser import assert_no_csp_violations, watched_context

    # The login page is shown signed out.
    state = None if shot.path == "/accounts/login/" else dashboard_logins.state(shot.role)
    viewport = {"width": shot.width, "height": shot.height}
    context = watched_context(chromium, viewport=viewport, storage_state=state)
    page = context.new_page()
    try:
        page.goto(screenshot_server.base_url + shot.path.format(ep="local"))
        if shot.opens:
            page.click(f"#panel-{shot.opens} > summary")
        element = page.locator(shot.element).first
        element.wait_for(state="visible", timeout=15_000)
        element.scroll_into_view_if_needed()
        box = element.evaluate(
            "e => { const r = e.getBoundingClientRect();"
            " return {x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height}; }"
        )
        assert box["width"] > 0 and box["height"] > 0, shot.element
        target = (REPO / OUT if OUT else ARTIFACTS / "docs") / f"{shot.name}.png"
        png = page.screenshot(full_page=True, clip=_clip(page, shot, box))
        _save(png, target)
    finally:
        context.close()
    assert_no_csp_violations(context)
