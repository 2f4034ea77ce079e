"""Django's ModelBackend, loading the signed-in user of each request with SQL compiled once.

Every page loads its user; the ORM building that query cost more than the
database answering it (``platform.prepared``). Passwords, permissions and
``is_active`` are Django's own. Sessions made before this backend was named
in settings sign in again once (their backend path is no longer listed).
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend as DjangoModelBackend

from hermes_ui.platform.prepared import Prepared

_USER = Prepared(lambda pk: get_user_model()._default_manager.filter(pk=pk))


class ModelBackend(DjangoModelBackend):
    def get_user(self, user_id):
        if not isinstance(user_id, int) or isinstance(user_id, bool):
            return super().get_user(user_id)
        found = _USER.instances(user_id)
        return found[0] if found and self.user_can_authenticate(found[0]) else None
