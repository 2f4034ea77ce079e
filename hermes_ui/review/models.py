"""Review queues and what reviewers give: labels, notes, mentions and corrections.

Every row that names a session carries the endpoint identity (``endpoint``,
``endpoint_fp``) and the session id, so an executed deletion finds and erases
it (``review.erase``). Labels, notes and corrections are copies of what the
reviewer read: they never reach the logs or the audit trail (which keeps
ids, counts and fingerprints only).
"""

from django.conf import settings
from django.db import models
from django.db.models import Q


class Stamped(models.Model):
    """A row about one session (and maybe one message) of one endpoint identity."""

    endpoint = models.CharField(max_length=40)
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")
    session_id = models.CharField(max_length=300)
    message_id = models.BigIntegerField(null=True, blank=True)  # None: the whole session

    class Meta:
        abstract = True


class Rubric(models.Model):
    """A named set of fields; what it asks is in its versions (the newest counts)."""

    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    is_default = models.BooleanField(default=False)
    archived = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class RubricVersion(models.Model):
    """One frozen version of a rubric. Editing a rubric adds a version; labels keep theirs.

    ``fields`` is a list of ``{"key", "label", "type", "applies", ...}``:
    ``type`` is ``choice`` (with ``choices``: a list of labels), ``number``
    (with ``min`` and ``max``), ``bool`` or ``text``; ``applies`` is
    ``session`` or ``message``.
    """

    rubric = models.ForeignKey(Rubric, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    fields = models.JSONField(default=list)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["rubric", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["rubric", "number"], name="review_rubric_version_once")
        ]

    def __str__(self):
        return f"{self.rubric.name} v{self.number}"


class Queue(models.Model):
    """Items to review on one endpoint, with one rubric, by its assignees."""

    endpoint = models.CharField(max_length=40)
    endpoint_fp = models.CharField(max_length=16, blank=True, default="")
    name = models.CharField(max_length=100)
    rubric = models.ForeignKey(Rubric, on_delete=models.PROTECT, related_name="queues")
    reviews_needed = models.PositiveSmallIntegerField(default=1)  # 1 to 3
    any_reviewer = models.BooleanField(default=True)  # else only ``assignees``
    assignees = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="+")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    archived = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "name"], name="review_queue_name_once")
        ]

    def __str__(self):
        return f"{self.endpoint}:{self.name}"


class Item(Stamped):
    """A session, or one message of it, waiting in a queue."""

    NEEDS_REVIEW = "needs_review"
    NEEDS_OTHERS = "needs_others"  # some reviews are in; more are needed
    COMPLETED = "completed"
    SKIPPED = "skipped"
    STATES = [
        (NEEDS_REVIEW, "needs review"),
        (NEEDS_OTHERS, "needs others' review"),
        (COMPLETED, "completed"),
        (SKIPPED, "skipped"),
    ]
    SOURCES = [
        ("page", "session page"),
        ("message", "message menu"),
        ("bulk", "bulk"),
        ("rule", "rule"),
    ]

    queue = models.ForeignKey(Queue, on_delete=models.CASCADE, related_name="items")
    state = models.CharField(max_length=20, choices=STATES, default=NEEDS_REVIEW)
    added_via = models.CharField(max_length=10, choices=SOURCES, default="page")
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    rule = models.ForeignKey("Rule", null=True, blank=True, on_delete=models.SET_NULL)
    reserved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reserved_until = models.DateTimeField(null=True, blank=True)
    skipped_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["queue", "id"]
        indexes = [
            models.Index(fields=["queue", "state", "id"]),
            models.Index(fields=["endpoint", "endpoint_fp", "session_id"]),
        ]
        constraints = [
            # An item is added once: a session once, and each message of it once.
            models.UniqueConstraint(
                fields=["queue", "session_id"],
                condition=Q(message_id__isnull=True),
                name="review_item_session_once",
            ),
            models.UniqueConstraint(
                fields=["queue", "session_id", "message_id"],
                condition=Q(message_id__isnull=False),
                name="review_item_message_once",
            ),
        ]

    def __str__(self):
        return f"{self.queue_id}:{self.session_id}#{self.message_id or ''} {self.state}"


class Review(models.Model):
    """One reviewer's work on one item, against the rubric version they saw."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="reviews")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewer_name = models.CharField(max_length=150)  # kept if the user is deleted
    version = models.ForeignKey(RubricVersion, on_delete=models.PROTECT, related_name="+")
    done = models.BooleanField(default=False)
    authoritative = models.BooleanField(default=False)  # an admin's pick among the reviews
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["item", "id"]
        constraints = [
            models.UniqueConstraint(fields=["item", "reviewer"], name="review_once_per_reviewer")
        ]

    def __str__(self):
        return f"review {self.pk} of item {self.item_id}"


class Label(Stamped):
    """One rubric field's value, on the session or on one of its messages.

    ``value`` is the value as text (a choice's label, ``yes``/``no``, a number,
    free text), so the index filter ``label:<field>=<value>`` is one lookup.
    """

    review = models.ForeignKey(Review, on_delete=models.CASCADE, related_name="labels")
    field = models.CharField(max_length=60)
    value = models.TextField()

    class Meta:
        ordering = ["review", "message_id", "field"]
        indexes = [
            models.Index(fields=["endpoint", "endpoint_fp", "session_id"]),
            models.Index(fields=["field", "endpoint"]),
        ]

    def __str__(self):
        return f"{self.session_id}#{self.message_id or ''} {self.field}"  # never the value


class Note(Stamped):
    """A comment in the thread of a session or of one message; may @mention users."""

    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    author_name = models.CharField(max_length=150)
    body = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["endpoint", "endpoint_fp", "session_id"])]

    def __str__(self):
        return f"note {self.pk} on {self.session_id}"  # never the body


class Mention(models.Model):
    """A user named in a note (``@name``): listed on their mentions page until read."""

    note = models.ForeignKey(Note, on_delete=models.CASCADE, related_name="mentions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-note__created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["note", "user"], name="review_mention_once")]

    def __str__(self):
        return f"mention of {self.user_id} in note {self.note_id}"


class Correction(Stamped):
    """What an assistant message should have said, by one reviewer."""

    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    author_name = models.CharField(max_length=150)
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]
        indexes = [models.Index(fields=["endpoint", "endpoint_fp", "session_id"])]

    def __str__(self):
        return f"correction {self.pk} on {self.session_id}#{self.message_id}"  # never the text


class Rule(models.Model):
    """Adds matches of an index search to a queue, with a sampling rate, at each refresh.

    Sampling is decided by a hash of (rule, session id), so a session left out
    stays out, and one taken is never added twice.
    """

    queue = models.ForeignKey(Queue, on_delete=models.CASCADE, related_name="rules")
    query = models.CharField(max_length=200)  # the index search syntax
    always = models.CharField(max_length=200, blank=True)  # taken at 100 % (e.g. errors)
    percent = models.PositiveSmallIntegerField(default=100)  # of the rest
    active = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_run_at = models.DateTimeField(null=True, blank=True)
    last_added = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["queue", "id"]

    def __str__(self):
        return f"rule {self.pk} of queue {self.queue_id}"
