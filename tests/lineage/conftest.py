"""Lineage/index fixtures: an empty fake Hermes and an isolated SVG cache.

The index tests seed exactly the rows they reason about into the one fake
Hermes of ``tests/fakes.py``; real behaviour is covered again against the
real peer in the *_peer tests.
"""

import pytest

from hermes_ui.lineage import render


@pytest.fixture
def fake_hermes(fake_hermes):
    """The fake Hermes without the captured rows."""
    fake_hermes.clear()
    return fake_hermes


@pytest.fixture(autouse=True)
def isolated_svg_cache(settings, tmp_path):
    """Each test starts with an empty SVG cache in its own folder."""
    settings.DATA_DIR = tmp_path / "data"
    render.clear_memory()
    yield
    render.clear_memory()
