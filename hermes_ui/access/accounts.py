"""Creating users with a role, shared by the create_user command and the demo."""

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.db import transaction

from hermes_ui.access.grants import set_role


def ensure_user(username: str, role: str, password: str, give_role=None) -> bool:
    """Create or update ``username``; returns True when it was created.

    The role is on every endpoint (``set_role``) unless ``give_role(user)``
    gives it otherwise (``create_user --endpoint``), in the same transaction.
    Raises ``django.core.exceptions.ValidationError`` for a weak password and
    ``ValueError`` for an empty name or an unknown role.
    """
    username = username.strip()
    if not username:
        raise ValueError("The username cannot be empty.")
    User = get_user_model()
    with transaction.atomic():
        user, created = User.objects.get_or_create(username=username)
        validate_password(password, user)
        user.set_password(password)
        user.is_active = True
        user.save()
        (give_role or (lambda person: set_role(person, role)))(user)
    return created


def create_if_missing(username: str, role: str, password: str) -> bool:
    """Create ``username`` with ``role`` and ``password`` unless it exists; True if created.

    An existing account is left exactly as it is: a start never resets a
    password someone changed, nor re-activates an account someone disabled.
    """
    User = get_user_model()
    with transaction.atomic():
        if User.objects.filter(username=username.strip()).exists():
            return False
        return ensure_user(username, role, password)
