"""Rows a module's tests share, made once: Django's ``setUpTestData`` for pytest.

A module-scoped fixture makes them inside a transaction that stays open for the
module and is never committed. Each test's own transaction (``django_db``) is a
savepoint of it, rolled back after the test, so every test starts from the same
rows. Only for modules whose every test that uses the database asks for the fixture
(another would start from those rows too) and none needs ``transactional_db``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction


@contextmanager
def module_transaction(django_db_blocker) -> Iterator[None]:
    """Open the module's transaction; roll it back on the way out. Make the rows inside
    ``django_db_blocker.unblock()``."""
    atomic = transaction.atomic()
    atomic._from_testcase = True  # type: ignore[attr-defined]  # durable blocks inside: as in a TestCase
    with django_db_blocker.unblock():
        atomic.__enter__()
    try:
        yield
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)
