"""Record and read observed facts about an endpoint."""

from __future__ import annotations

from django.utils import timezone

from hermes_ui.observed.models import DELETE_CASCADES, SESSION_FLAGS, Observation, Source
from hermes_ui.platform.endpoints import Endpoint


def record(
    endpoint: Endpoint,
    fact: str,
    holds: bool,
    source: str,
    source_ref: int | None = None,
    evidence: list | None = None,
) -> Observation:
    observation, _ = Observation.objects.update_or_create(
        **endpoint.scope(),  # type: ignore[arg-type]
        fact=fact,
        defaults={
            "holds": holds,
            "source": source,
            "source_ref": source_ref,
            "observed_at": timezone.now(),
            "evidence": list(evidence or []),
        },
    )
    return observation


def latest(endpoint: Endpoint, fact: str) -> Observation | None:
    return Observation.objects.filter(**endpoint.scope(), fact=fact).first()


def cascade_seen_failing(endpoint: Endpoint | None) -> Observation | None:
    """The observation that this endpoint's DELETE left delegates behind, if that is
    the latest thing seen (a later cascading DELETE clears the warning)."""
    if endpoint is None:
        return None
    seen = latest(endpoint, DELETE_CASCADES)
    return seen if seen is not None and not seen.holds else None


def record_cascade(
    endpoint: Endpoint, cascaded: bool, source: str, ref: int | None, leftovers: list[str]
) -> Observation:
    return record(endpoint, DELETE_CASCADES, cascaded, source, ref, leftovers)


__all__ = [
    "DELETE_CASCADES",
    "SESSION_FLAGS",
    "Source",
    "cascade_seen_failing",
    "latest",
    "record",
]
