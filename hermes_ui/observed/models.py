"""One observed fact per endpoint identity (``Endpoint.scope``), the latest wins."""

from django.db import models

DELETE_CASCADES = "delete_cascades"  # does DELETE remove the delegate descendants?
SESSION_FLAGS = "session_flags"  # does PATCH accept archived and pinned (Hermes after 0.19)?


class Source(models.TextChoices):
    DELETION = "deletion", "a deletion case"
    VERIFICATION = "verification", "the integration check (verify_endpoint)"
    CHANGE = "change", "a change to a session (archive, restore, pin, unpin)"


class Observation(models.Model):
    endpoint = models.CharField(max_length=40)
    endpoint_fp = models.CharField(max_length=16)
    fact = models.CharField(max_length=40)
    holds = models.BooleanField()
    source = models.CharField(max_length=20, choices=Source.choices)
    # The case or report number the fact was read in (ids only).
    source_ref = models.PositiveIntegerField(null=True, blank=True)
    observed_at = models.DateTimeField()
    # Ids that showed it (e.g. the delegates still present after the DELETE).
    evidence = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("endpoint", "endpoint_fp", "fact"), name="uniq_fact")
        ]

    def __str__(self):
        return f"{self.endpoint} {self.fact}={self.holds}"
