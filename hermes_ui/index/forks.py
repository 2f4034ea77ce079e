"""Remembering forks: written by the fork view, read by lineage and lists."""

from hermes_ui.index.models import KnownFork
from hermes_ui.platform.endpoints import Endpoint


def remember_fork(ep: Endpoint, parent_id: str, child_id: str, user=None) -> None:
    KnownFork.objects.get_or_create(
        **ep.scope(),
        child_id=child_id,
        defaults={
            "parent_id": parent_id,
            "user": user if getattr(user, "is_authenticated", False) else None,
        },
    )


def forked_child_ids(ep: Endpoint) -> set[str]:
    return set(KnownFork.objects.filter(**ep.scope()).values_list("child_id", flat=True))


def forks_of(ep: Endpoint, parent_id: str) -> list[KnownFork]:
    return list(KnownFork.objects.filter(**ep.scope(), parent_id=parent_id))
