"""Break-glass sign-in for an admin while password sign-in is off (``manage.py break_glass``).

A one-time link, made on the server by someone who can run manage.py. Its token
is Django's password-reset token with its own salt: it is bound to the
account's password hash and last login, so signing in with it (which updates
the last login) spends it; and it is refused after ``MAX_AGE`` seconds.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.utils.encoding import force_bytes, force_str
from django.utils.http import base36_to_int, urlsafe_base64_decode, urlsafe_base64_encode

MAX_AGE = 15 * 60


class BreakGlassTokens(PasswordResetTokenGenerator):
    key_salt = "hermes_ui.sso.break_glass"

    def check_token(self, user, token) -> bool:
        if not super().check_token(user, token):
            return False
        try:
            issued = base36_to_int(token.split("-", 1)[0])
        except ValueError:
            return False
        return self._num_seconds(self._now()) - issued <= MAX_AGE


tokens = BreakGlassTokens()


def make_path(user) -> str:
    from django.urls import reverse

    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return reverse("sso_break_glass", kwargs={"uid": uid, "token": tokens.make_token(user)})


def user_for(uid: str, token: str):
    """The account the link is for, or None if the link is wrong, spent or too old."""
    try:
        pk = force_str(urlsafe_base64_decode(uid))
        user = get_user_model().objects.get(pk=pk)
    except (ValueError, TypeError, OverflowError, get_user_model().DoesNotExist):
        return None
    return user if tokens.check_token(user, token) else None
