"""Recording verdicts and reading them back: per pair, per session, per endpoint."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q

from hermes_ui.audit import trail
from hermes_ui.audit.models import Outcome
from hermes_ui.compare.models import Verdict
from hermes_ui.index.models import KnownFork
from hermes_ui.platform.endpoints import Endpoint

CAPABILITY = "compare_verdict"
A, B, NEITHER = "a", "b", "neither"
CHOICES = ((A, "A is better"), (B, "B is better"), (NEITHER, "Neither"))


def ordered(a_id: str, b_id: str) -> tuple[str, str]:
    return (a_id, b_id) if a_id <= b_id else (b_id, a_id)


def record(ep: Endpoint, user, a_id: str, b_id: str, choice: str, reason: str) -> Verdict:
    """Store the verdict and audit it; the audit keeps the reason's fingerprint only."""
    preferred = {A: a_id, B: b_id, NEITHER: ""}[choice]
    first, second = ordered(a_id, b_id)
    with transaction.atomic():
        verdict = Verdict.objects.create(
            **ep.scope(),
            first_id=first,
            second_id=second,
            preferred_id=preferred,
            reason=reason,
            user=user,
            username=user.get_username(),
        )
        trail.record(
            user,
            capability=CAPABILITY,
            endpoint=ep.id,
            outcome=Outcome.SUCCESS,
            session_id=a_id,
            evidence={
                "session_id": a_id,
                "other_session_id": b_id,
                "preferred_session_id": preferred,
                "choice": choice,
                "reason": reason,
                "id": verdict.pk,
            },
        )
    return verdict


def latest_for_pair(ep: Endpoint, a_id: str, b_id: str) -> Verdict | None:
    first, second = ordered(a_id, b_id)
    return Verdict.objects.filter(**ep.scope(), first_id=first, second_id=second).first()


def history_for_pair(ep: Endpoint, a_id: str, b_id: str, limit: int = 20) -> list[Verdict]:
    first, second = ordered(a_id, b_id)
    return list(Verdict.objects.filter(**ep.scope(), first_id=first, second_id=second)[:limit])


def for_session(ep: Endpoint, session_id: str, limit: int = 20) -> list[Verdict]:
    """The newest verdict of each pair this session is part of."""
    found = Verdict.objects.filter(Q(first_id=session_id) | Q(second_id=session_id), **ep.scope())
    newest: dict[tuple[str, str], Verdict] = {}
    for verdict in found[: limit * 5]:
        newest.setdefault((verdict.first_id, verdict.second_id), verdict)
    return list(newest.values())[:limit]


def preferred_ids(ep: Endpoint, session_ids=None) -> frozenset[str]:
    """Sessions (of ``session_ids``, or all) that won the newest verdict of some pair."""
    found = Verdict.objects.filter(**ep.scope())
    if session_ids is not None:
        ids = set(session_ids)
        found = found.filter(Q(first_id__in=ids) | Q(second_id__in=ids))
    else:
        ids = None
    found = found.values_list("first_id", "second_id", "preferred_id")  # type: ignore[assignment]
    newest: dict[tuple[str, str], str] = {}
    for first, second, preferred in found:  # type: ignore[misc]  # newest first (Meta.ordering)
        newest.setdefault((first, second), preferred)  # type: ignore[has-type]
    return frozenset(p for p in newest.values() if p and (ids is None or p in ids))


@dataclass
class Pending:
    fork: KnownFork
    siblings: list[str]  # other dashboard forks of the same parent


def to_review(ep: Endpoint, limit: int = 200) -> list[Pending]:
    """Forks made in this dashboard that no verdict names yet, newest first."""
    forks = list(KnownFork.objects.filter(**ep.scope()).order_by("-created_at", "-id")[:limit])
    judged = set()  # type: ignore[var-annotated]
    for first, second in Verdict.objects.filter(**ep.scope()).values_list("first_id", "second_id"):
        judged.update((first, second))
    by_parent: dict[str, list[str]] = {}
    for fork in forks:
        by_parent.setdefault(fork.parent_id, []).append(fork.child_id)
    return [
        Pending(fork, [c for c in by_parent[fork.parent_id] if c != fork.child_id])
        for fork in forks
        if fork.child_id not in judged
    ]
