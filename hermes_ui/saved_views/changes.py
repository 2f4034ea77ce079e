"""Who may change which view, and the audit of each change (ids only: names are user text)."""

from __future__ import annotations

from django.http import Http404

from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record
from hermes_ui.saved_views.models import SavedView
from hermes_ui.web.roles import ADMIN, REVIEWER, has_role, require_role


def may_share(user) -> bool:
    return has_role(user, REVIEWER)


def own(user, pk: int) -> SavedView:
    """The user's own view ``pk``; anyone else's is "not found"."""
    row = SavedView.objects.filter(owner=user, pk=pk).first()
    if row is None:
        raise Http404("No such view of yours.")
    return row


def deletable(user, pk: int) -> SavedView:
    """Owners delete their views; admins also delete views others shared."""
    row = SavedView.objects.filter(pk=pk).first()
    if row is None or (row.owner_id != user.pk and not row.shared):
        raise Http404("No such view.")
    if row.owner_id != user.pk:
        require_role(user, ADMIN)
    return row


def audit(user, capability: str, endpoint_id: str, pk: int | None, **evidence) -> None:
    record(
        user,
        capability=capability,
        endpoint=endpoint_id,
        outcome=Outcome.SUCCESS,
        evidence={"id": pk, **evidence},
    )
