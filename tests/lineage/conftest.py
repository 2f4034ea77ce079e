"""Lineage fixtures: an isolated SVG cache (the empty fake Hermes is ``empty_hermes``)."""

import pytest

from hermes_ui.lineage import render


@pytest.fixture(autouse=True)
def isolated_svg_cache(settings, tmp_path):
    """Each test starts with an empty SVG cache in its own folder."""
    settings.DATA_DIR = tmp_path / "data"
    render.clear_memory()
    yield
    render.clear_memory()
