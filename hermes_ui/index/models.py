"""Rows the dashboard keeps about Hermes sessions (it owns these, not the data)."""

from django.conf import settings
from django.db import models


class KnownFork(models.Model):
    """Every fork this dashboard performed.

    An API fork of a parent that was already closed for another reason is
    hidden from the default list and looks like any other child in the
    administrative one, so only this record says "this child is a branch".
    """

    endpoint = models.CharField(max_length=40)
    # With ``endpoint``, the identity of the Hermes database the row came from
    # (``Endpoint.fingerprint``): re-pointing an id at another server never
    # shows this row as the new server's.
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")
    parent_id = models.CharField(max_length=300)
    child_id = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint", "endpoint_fp", "child_id"], name="uniq_known_fork"
            )
        ]
        indexes = [models.Index(fields=["endpoint", "endpoint_fp", "parent_id"])]

    def __str__(self):
        return f"{self.endpoint}:{self.parent_id}->{self.child_id}"


class IndexedSession(models.Model):
    """One row of an endpoint's administrative list, as last seen by a sync.

    The columns are the API's own fields (never message content beyond the
    provider's 60-character preview). ``digest`` fingerprints them so a sync
    can tell "unchanged" without comparing field by field; ``changed_gen``
    is the sync generation that last added, changed or lost the row, which is
    what lets list pages page over one snapshot.
    """

    endpoint = models.CharField(max_length=40)
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")  # see KnownFork
    session_id = models.CharField(max_length=300)
    source = models.CharField(max_length=200, blank=True)
    model = models.CharField(max_length=200, blank=True)
    title = models.CharField(max_length=300, blank=True)
    parent_session_id = models.CharField(max_length=300, blank=True)
    started_at = models.FloatField(null=True)
    ended_at = models.FloatField(null=True)
    end_reason = models.CharField(max_length=200, blank=True)
    message_count = models.IntegerField(null=True)
    tool_call_count = models.IntegerField(null=True)
    api_call_count = models.IntegerField(null=True)
    input_tokens = models.BigIntegerField(null=True)
    output_tokens = models.BigIntegerField(null=True)
    cache_read_tokens = models.BigIntegerField(null=True)
    cache_write_tokens = models.BigIntegerField(null=True)
    reasoning_tokens = models.BigIntegerField(null=True)
    estimated_cost_usd = models.FloatField(null=True)
    actual_cost_usd = models.FloatField(null=True)
    last_active = models.FloatField(null=True)
    preview = models.CharField(max_length=300, blank=True)
    # From the default list: a compression tip carries its root here.
    lineage_root_id = models.CharField(max_length=300, blank=True)
    # Ordering key of the list pages: last activity, else start time.
    order_key = models.FloatField(default=0.0)
    digest = models.CharField(max_length=32)

    # What the dashboard worked out.
    listed = models.BooleanField(default=True)  # seen in the administrative list
    # As a Hermes newer than 0.19 reports them; null where the server does not.
    archived = models.BooleanField(null=True)
    pinned = models.BooleanField(null=True)
    visible_in_default_list = models.BooleanField(default=False)
    default_list_id = models.CharField(max_length=300, blank=True)  # the tip it shows as
    kind = models.CharField(max_length=20, blank=True, db_index=True)
    child_count = models.IntegerField(default=0)
    former_parent_id = models.CharField(max_length=300, blank=True)

    first_seen_at = models.DateTimeField()
    last_seen_at = models.DateTimeField()
    vanished_at = models.DateTimeField(null=True)
    changed_gen = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint", "endpoint_fp", "session_id"], name="uniq_indexed_session"
            )
        ]
        indexes = [
            # vanished_at last: SQLite then prefers this index for "children of".
            models.Index(fields=["endpoint", "endpoint_fp", "parent_session_id", "vanished_at"]),
            models.Index(fields=["endpoint", "endpoint_fp", "former_parent_id"]),
            models.Index(fields=["endpoint", "endpoint_fp", "vanished_at", "order_key"]),
            # The search pages' order (newest first, row id breaking ties) over
            # present rows only, so PostgreSQL reads a page off the index instead
            # of sorting every row on every index page:
            # it cannot order by the columns after an ``IS NULL`` one.
            models.Index(
                fields=["endpoint", "endpoint_fp", "order_key", "id"],
                condition=models.Q(vanished_at__isnull=True),
                name="index_present_order",
            ),
            # "Does archived:no hide anything?" (index.archived.hides_any, cached per sync
            # state): at 100,000 rows, all listed, the other indexes leave the database
            # scanning every root for none. PostgreSQL answers it from
            # this index of the archived-looking roots alone; SQLite's planner keeps its
            # four-column index, so the answer is cached.
            models.Index(
                fields=["endpoint", "endpoint_fp", "session_id"],
                condition=models.Q(listed=False, parent_session_id="", vanished_at__isnull=True),
                name="index_archived_roots",
            ),
            # The ``new:`` filter joins a user's watermarks to their rows by this key
            # and compares message counts: with the count in the index SQLite reads
            # no row.
            models.Index(
                fields=["endpoint", "endpoint_fp", "session_id", "message_count"],
                name="index_session_count",
            ),
            # A person granted some sources of an endpoint (access.rules): their page
            # and its count read one source's present rows in order, not every row.
            models.Index(
                fields=["endpoint", "endpoint_fp", "source", "order_key", "id"],
                condition=models.Q(vanished_at__isnull=True),
                name="index_present_source",
            ),
            # A session's source by endpoint and id alone (access.scope.session_source, and
            # the subquery of access.rows for notes, mentions and review items).
            models.Index(fields=["endpoint", "session_id"], name="index_endpoint_session"),
        ]

    def __str__(self):
        return f"{self.endpoint}:{self.session_id}"


class IndexSyncState(models.Model):
    """Per endpoint identity: how fresh the index is, and the progress of a running sync."""

    endpoint = models.CharField(max_length=40)
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")  # see KnownFork
    base_url = models.CharField(max_length=300, blank=True)  # ``Endpoint.public_url``
    # When this identity replaced another one of the same id, and its URL:
    # the index page says so, since every row of the old server was dropped.
    replaced_url = models.CharField(max_length=300, blank=True)
    replaced_at = models.DateTimeField(null=True)
    generation = models.IntegerField(default=0)
    sweep = models.IntegerField(default=0)  # full sweeps completed
    last_sync_at = models.DateTimeField(null=True)
    last_full_at = models.DateTimeField(null=True)
    last_report = models.JSONField(default=dict, blank=True)  # counts and timings only
    last_error_code = models.CharField(max_length=60, blank=True)
    last_error_at = models.DateTimeField(null=True)
    # Dashboard actions already folded in (audit events and forks it made).
    last_audit_id = models.BigIntegerField(default=0)
    last_fork_id = models.BigIntegerField(default=0)
    # A lease, so the background refresher, the button and the command never
    # run two syncs of one endpoint at once.
    running_since = models.DateTimeField(null=True)
    running_full = models.BooleanField(default=False)
    progress = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "endpoint_fp"], name="uniq_index_state")
        ]

    def __str__(self):
        return f"{self.endpoint} gen {self.generation}"


class ContentSession(models.Model):
    """Which transcript the content index holds for one indexed session.

    ``session_messages`` resolves a compression root to its tip (and, after an
    API fork, a parent to its newest fork): ``resolved_id`` is the session the
    messages came back for, and the one ``ContentMessage`` rows are stored
    under. ``signature`` is the listed row's message count and last activity
    when the transcript was read, so a sync re-reads only what changed.
    """

    endpoint = models.CharField(max_length=40)
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")  # see KnownFork
    session_id = models.CharField(max_length=300)
    resolved_id = models.CharField(max_length=300)
    signature = models.CharField(max_length=80)
    messages = models.IntegerField(default=0)
    read_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint", "endpoint_fp", "session_id"], name="uniq_content_session"
            )
        ]
        indexes = [
            models.Index(
                fields=["endpoint", "endpoint_fp", "resolved_id"], name="content_session_resolved"
            )
        ]

    def __str__(self):
        return f"{self.endpoint}:{self.session_id}->{self.resolved_id}"


class ContentMessage(models.Model):
    """The searchable text of one active message (see ``index.content``).

    Full-text search runs over ``text`` through a database-specific index the
    migrations add beside this table: an FTS5 table kept in step by triggers
    on SQLite, a generated ``tsvector`` column with a GIN index on PostgreSQL.
    """

    endpoint = models.CharField(max_length=40)
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")  # see KnownFork
    session_id = models.CharField(max_length=300)  # the resolved id
    message_id = models.BigIntegerField()
    role = models.CharField(max_length=40, blank=True)
    timestamp = models.FloatField(null=True)
    text = models.TextField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint", "endpoint_fp", "session_id", "message_id"],
                name="uniq_content_message",
            )
        ]

    def __str__(self):
        return f"{self.endpoint}:{self.session_id}#{self.message_id}"
