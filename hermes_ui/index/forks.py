"""Remembering forks: written by the fork view, read by lineage and lists."""

from hermes_ui.index.models import KnownFork


def remember_fork(endpoint_id: str, parent_id: str, child_id: str, user=None) -> None:
    KnownFork.objects.get_or_create(
        endpoint=endpoint_id,
        child_id=child_id,
        defaults={
            "parent_id": parent_id,
            "user": user if getattr(user, "is_authenticated", False) else None,
        },
    )


def forked_child_ids(endpoint_id: str) -> set[str]:
    return set(KnownFork.objects.filter(endpoint=endpoint_id).values_list("child_id", flat=True))


def forks_of(endpoint_id: str, parent_id: str) -> list[KnownFork]:
    return list(KnownFork.objects.filter(endpoint=endpoint_id, parent_id=parent_id))
