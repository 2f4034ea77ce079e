"""Fixtures of the review filters, badges, rules and dataset tests.

The data comes straight from the review models (queues, items, reviews and
labels as the review pages would leave them): these tests are about what is
read from them. ``dataset_peer`` is this package's own seeded peer: the
tests plant sessions in it and index its transcripts.
"""

import pytest

from hermes_ui.review.models import Queue, Rubric, RubricVersion
from tests.deletion.conftest import clock  # noqa: F401 (fixture)
from tests.support.peers import dataset_endpoint, dataset_peer  # noqa: F401 (fixtures)

FIELDS = [
    {"key": "resolved", "label": "Resolved", "type": "bool", "applies": "session"},
    {
        "key": "quality",
        "label": "Quality",
        "type": "number",
        "min": 1,
        "max": 5,
        "applies": "session",
    },
    {
        "key": "policy",
        "label": "Policy issue",
        "type": "choice",
        "choices": ["none", "privacy", "self harm"],
        "applies": "session",
    },
    {
        "key": "accuracy",
        "label": "Accuracy",
        "type": "choice",
        "choices": ["right", "wrong"],
        "applies": "message",
    },
    {"key": "note", "label": "Note", "type": "text", "applies": "message"},
]


@pytest.fixture
def version(db):
    rubric = Rubric.objects.create(name="Data test rubric")
    return RubricVersion.objects.create(rubric=rubric, number=3, fields=FIELDS)


@pytest.fixture
def queue_maker(version):
    def make(ep, name="triage", reviews_needed=1, owner=None):
        return Queue.objects.create(
            **ep.scope(),
            name=name,
            rubric=version.rubric,
            reviews_needed=reviews_needed,
            owner=owner,
        )

    return make
