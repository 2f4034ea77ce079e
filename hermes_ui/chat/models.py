"""Turns in flight and their retained events (owned by the chat feature)."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class TurnState(models.TextChoices):
    PENDING = "pending", "waiting for Hermes"
    STREAMING = "streaming", "streaming"
    COMPLETED = "completed", "completed"
    FAILED = "failed", "failed"
    CANCELLED = "cancelled", "cancelled"
    TRUNCATED = "truncated", "truncated"
    UNCERTAIN = "uncertain", "outcome uncertain"


# A failed turn that Hermes refused before anything ran.
REFUSED_LABEL = "refused"


def state_label(state: str, *, rejected: bool = False) -> str:
    """The words every page shows for a turn's state."""
    if state == TurnState.FAILED and rejected:
        return REFUSED_LABEL
    if state in TurnState.values:
        return TurnState(state).label
    return TurnState.UNCERTAIN.label


ACTIVE_STATES = (TurnState.PENDING, TurnState.STREAMING)
TERMINAL_STATES = tuple(s for s in TurnState if s not in ACTIVE_STATES)
_NEXT = {
    TurnState.PENDING: {TurnState.STREAMING, *TERMINAL_STATES} - {TurnState.TRUNCATED},
    TurnState.STREAMING: set(TERMINAL_STATES),
}


class IllegalTransition(ValueError):
    pass


def check_transition(current: str, new: str) -> None:
    if new not in _NEXT.get(current, set()):  # type: ignore[call-overload]
        raise IllegalTransition(f"a turn cannot go from {current} to {new}")


class Turn(models.Model):
    class Mode(models.TextChoices):
        STREAM = "stream", "streamed (session_chat_stream)"
        SYNC = "sync", "non-streaming (session_chat)"

    endpoint = models.CharField(max_length=40)
    # With ``endpoint``, the identity of the Hermes database (``Endpoint.fingerprint``).
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")
    # The id the user posted on, the resolved tip the turn was sent to, and
    # the id compression rotated the transcript to during the turn (if any).
    requested_session_id = models.CharField(max_length=300)
    target_session_id = models.CharField(max_length=300, db_index=True)
    effective_session_id = models.CharField(max_length=300, blank=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    # The form's key plus a digest of its inputs: the same submission maps to
    # the same turn, a changed one is a new intent (see audit.idempotency).
    form_key = models.CharField(max_length=100)
    mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.STREAM)
    # The process that relays the turn; a pending/streaming turn of another
    # (dead) process can never finish and is settled as uncertain.
    runner = models.CharField(max_length=40, blank=True)
    state = models.CharField(max_length=20, choices=TurnState.choices, default=TurnState.PENDING)
    rejected = models.BooleanField(default=False)  # Hermes refused it before anything ran
    error_code = models.CharField(max_length=60, blank=True)
    error_message = models.TextField(blank=True)
    message = models.JSONField()  # the content sent: text or a list of parts
    system_message = models.TextField(blank=True)
    session_key = models.CharField(max_length=256, blank=True)
    answer = models.TextField(blank=True)
    run_id = models.CharField(max_length=80, blank=True)
    input_tokens = models.PositiveIntegerField(null=True, blank=True)
    output_tokens = models.PositiveIntegerField(null=True, blank=True)
    total_tokens = models.PositiveIntegerField(null=True, blank=True)
    event_count = models.PositiveIntegerField(default=0)
    keepalives = models.PositiveIntegerField(default=0)
    baseline_message_id = models.BigIntegerField(null=True, blank=True)
    durability = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint", "endpoint_fp", "form_key"], name="chat_turn_form_key"
            ),
            # One turn at a time per session from this dashboard: Hermes does
            # not serialize concurrent turns, they interleave.
            models.UniqueConstraint(
                fields=["endpoint", "endpoint_fp", "target_session_id"],
                condition=Q(state__in=["pending", "streaming"]),
                name="chat_one_running_turn_per_session",
            ),
        ]

    def __str__(self):
        return f"turn {self.pk} on {self.endpoint} {self.state}"

    @property
    def active(self) -> bool:
        return self.state in ACTIVE_STATES


class TurnEvent(models.Model):
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()  # 1.. in the order received
    name = models.CharField(max_length=40)
    data = models.JSONField(default=dict)
    received_at = models.FloatField()  # time.time() when the relay read it

    class Meta:
        ordering = ["turn", "seq"]
        constraints = [models.UniqueConstraint(fields=["turn", "seq"], name="chat_event_seq")]

    def __str__(self):
        return f"{self.turn_id}#{self.seq} {self.name}"
