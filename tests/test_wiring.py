"""The tables that wire features together name code that exists (a moved module fails here)."""

from django.apps import apps
from django.utils.module_loading import import_string

from hermes_ui.deletion import erasers
from hermes_ui.platform import events
from hermes_ui.search import badges, facets


def test_every_search_filter_is_found_under_its_key():
    for key, path in facets.FACETS.items():
        assert import_string(path).key == key, path


def test_every_badge_reader_and_event_receiver_exists():
    paths = [*badges.READERS.values(), *events.RECEIVERS.values()]
    for path in paths:
        assert callable(import_string(path)), path


def test_every_eraser_names_functions_and_models_that_exist():
    for eraser in erasers.all_erasers():
        for path in (eraser.erase, eraser.held):
            assert path is None or callable(import_string(path)), eraser.name
        for label in eraser.models:
            assert apps.get_model(label), eraser.name
