"""Usage booked per day: what each index sync saw the counters of each session grow by.

``Booking`` is the ledger, one row per session and sync that moved its
counters; it names the session, so erasure removes it. ``DayTotal`` is the
same amounts summed per day, endpoint identity, source, model and kind
(history or seen); the usage page reads only those sums. Erasing a session
moves its amounts from its ``DayTotal`` rows to the day's "deleted
sessions" row, which has no source, model or id.
"""

from django.db import models


class Amounts(models.Model):
    input_tokens = models.BigIntegerField(default=0)
    output_tokens = models.BigIntegerField(default=0)
    cache_read_tokens = models.BigIntegerField(default=0)
    cache_write_tokens = models.BigIntegerField(default=0)
    reasoning_tokens = models.BigIntegerField(default=0)
    estimated_cost_usd = models.FloatField(default=0.0)
    actual_cost_usd = models.FloatField(default=0.0)

    class Meta:
        abstract = True


class Booking(Amounts):
    """What one sync saw one session's counters grow by, booked on ``day``."""

    endpoint = models.CharField(max_length=40)
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")
    session_id = models.CharField(max_length=300)
    day = models.DateField()
    # A first sync books the session's whole past on its start day.
    history = models.BooleanField(default=False)
    source = models.CharField(max_length=200, blank=True)
    model = models.CharField(max_length=200, blank=True)
    booked_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["endpoint", "endpoint_fp", "session_id"])]
        constraints = [
            # A session's past is booked once, however many writers see it first.
            models.UniqueConstraint(
                fields=["endpoint", "endpoint_fp", "session_id"],
                condition=models.Q(history=True),
                name="uniq_usage_history",
            )
        ]

    def __str__(self):
        return f"{self.endpoint}:{self.session_id}@{self.day}"


class DayTotal(Amounts):
    """The bookings of one day, endpoint identity, source, model and kind, summed."""

    endpoint = models.CharField(max_length=40)
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")
    day = models.DateField()
    source = models.CharField(max_length=200, blank=True)
    model = models.CharField(max_length=200, blank=True)
    history = models.BooleanField(default=False)
    # Amounts of erased sessions: source and model blank, no session named.
    deleted = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint", "endpoint_fp", "day", "source", "model", "history", "deleted"],
                name="uniq_usage_day_total",
            )
        ]
        indexes = [models.Index(fields=["endpoint", "endpoint_fp", "day"])]

    def __str__(self):
        return f"{self.endpoint}@{self.day} {self.source}/{self.model}"
