"""Two login limits with django-axes: one person mistyping, and one address spraying.

django-axes keeps a row of failures per (username, address, user agent) and,
for each combination in ``AXES_LOCKOUT_PARAMETERS``, sums the rows of the
cool-off window (``AXES_COOLOFF_TIME``); but it compares every sum with the
one ``AXES_FAILURE_LIMIT`` (its ``get_failures`` is the largest sum). A
callable ``AXES_FAILURE_LIMIT`` is not told which combination it is for. So
this handler, axes' supported extension point (``AXES_HANDLER``), keeps axes'
records, cool-off, middleware, lockout page and commands, and changes two
methods:

* ``get_failures`` returns the larger of the username-and-address sum and the
  address sum shifted down by ``HERMES_UI_LOGIN_ADDRESS_FAILURE_LIMIT -
  AXES_FAILURE_LIMIT``: axes' own comparison with ``AXES_FAILURE_LIMIT`` then
  locks one username from one address at the per-user limit, and the whole
  address at the address limit. In the address sum a row counts at most
  ``AXES_FAILURE_LIMIT`` failures: past that its username is locked, and its
  attempts are refused unchecked, not password guesses.
* ``reset_user_attempts`` (``AXES_RESET_ON_SUCCESS``): a good login clears
  that username's failures from that address, as before. Axes would delete
  every row that *any* combination matches, the whole address included, so
  one good login of a sprayer's own account would wipe the address's count
  and unlock every other username locked from there.

It must be imported lazily (by name, from ``AXES_HANDLER``): it imports models.
"""

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import F, Sum, Value
from django.db.models.functions import Least

USER_FROM_ADDRESS = ("username", "ip_address")
ADDRESS = ("ip_address",)


def _combination(parameter) -> tuple[str, ...]:
    return (parameter,) if isinstance(parameter, str) else tuple(parameter)


class LoginLimitsHandler(AxesDatabaseHandler):
    def get_failures(self, request, credentials=None) -> int:
        combinations = [_combination(p) for p in settings.AXES_LOCKOUT_PARAMETERS]
        attempts = self.get_user_attempts(request, credentials)  # the cool-off window's rows
        per_user = per_address = 0
        for combination, rows in zip(combinations, attempts, strict=True):
            if combination == USER_FROM_ADDRESS:
                per_user = _total(rows, F("failures_since_start"))
            elif combination == ADDRESS:
                # A row counts up to the per-user limit: past it, that username is
                # locked and its attempts are refused unchecked, so one person
                # retrying while locked never locks everyone behind the address.
                capped = Least(F("failures_since_start"), Value(settings.AXES_FAILURE_LIMIT))
                per_address = _total(rows, capped)
        address_limit = settings.HERMES_UI_LOGIN_ADDRESS_FAILURE_LIMIT
        # For the lockout page: whether it is the address's limit that was reached.
        request.hermes_address_locked = per_address >= address_limit
        return max(per_user, per_address - (address_limit - settings.AXES_FAILURE_LIMIT))

    def reset_user_attempts(self, request, credentials=None) -> int:
        username = get_client_username(request, credentials)
        rows = AccessAttempt.objects.filter(username=username, ip_address=request.axes_ip_address)
        count, _ = rows.delete()
        return count


def _total(rows, expression) -> int:
    return rows.aggregate(total=Sum(expression))["total"] or 0
