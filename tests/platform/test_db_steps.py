"""Database steps off the page lanes give their connection back."""

import pytest
from django.db import connection, transaction

from hermes_ui.platform.db_steps import released


def _count_users():
    from django.contrib.auth import get_user_model

    return get_user_model().objects.count()


@pytest.mark.django_db(transaction=True)
def test_a_released_step_gives_its_connection_back():
    assert released(_count_users)() == 0
    assert connection.connection is None  # closed: the next query opens one again
    assert _count_users() == 0


@pytest.mark.django_db(transaction=True)
def test_a_step_inside_a_transaction_keeps_its_connection():
    with transaction.atomic():
        released(_count_users)()
        assert connection.connection is not None  # closing would end the transaction
