"""The route walk of ``test_every_route.py``: canaries, two fake Hermes, every URL.

Two endpoints: ``open`` holds ordinary sessions, ``hidden-7f3a`` holds sessions
whose id, title, message text and source are canaries (each holds ``7f3a``).
The same canaries are planted in the dashboard's own tables (index, review,
tags, audit, deletion, jobs, chat, usage...), so pages that only read the
database are walked too. A person who may not see them must never find
``7f3a`` in an answer, whatever the route.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from urllib.parse import quote

from asgiref.sync import async_to_sync
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RegexPattern, RoutePattern
from django.utils import timezone

from hermes_ui.platform.endpoints import get_endpoint
from tests.support.fakes import FakeHermes

MARK = "7f3a"  # in every canary's id and words
# What every canary string holds: the check's catch-all (not "7f3a" alone: a random
# request id, CSRF token or CSP nonce holds four given hex digits now and then).
CATCH_ALL = "canary"
HIDDEN = "hidden-7f3a"  # the endpoint the walkers have no grant on
OPEN = "open"
CANARY_ID = "canary-id-7f3a"
CANARY_CHILD = "canary-child-7f3a"
CANARY_TITLE = "Canary title 7f3a"
CANARY_WORDS = "canary words 7f3a"
CANARY_SOURCE = "canary-src"
# What an answer must never hold, lowercased, with what it is (for the report).
CANARIES = {
    CANARY_ID: "session id",
    CANARY_CHILD: "child id",
    CANARY_TITLE.lower(): "title",
    CANARY_WORDS: "message text",
    CANARY_SOURCE: "source",
    HIDDEN: "endpoint id",
    CATCH_ALL: "canary marker",
}
OPEN_ROOT = "open-root"  # an ordinary cli session; in pass (b) a canary child hangs below it
OPEN_CHILD = "open-child"  # an ordinary cli session; in pass (b) its parent is the canary


class Hosts:
    """One transport for several endpoints: each host is answered by its own FakeHermes."""

    def __init__(self, **fakes: FakeHermes):
        self.fakes = {f"{name}.test": fake for name, fake in fakes.items()}

    def __call__(self, request):
        return self.fakes[request.url.host](request)


def _canary_messages(fake: FakeHermes, sid: str) -> None:
    for message in fake.messages[sid]:
        message["content"] = f"{CANARY_WORDS} ({CANARY_TITLE})"


def hermes(*, source_pass: bool) -> tuple[FakeHermes, FakeHermes]:
    """The two fakes: ``open`` and ``hidden``; ``source_pass`` also hides the canaries on
    ``open`` under the source ``canary-src`` (tied into the lineage of ordinary sessions)."""
    open_, hidden = FakeHermes(), FakeHermes()
    open_.add(OPEN_ROOT, at=1796300000.0, title="Ordinary root")
    if source_pass:
        open_.add(
            CANARY_ID,
            at=1796300100.0,
            parent=OPEN_ROOT,
            source=CANARY_SOURCE,
            marker="branch",
            title=CANARY_TITLE,
            preview=CANARY_WORDS,
        )
        _canary_messages(open_, CANARY_ID)
        open_.add(OPEN_CHILD, at=1796300200.0, parent=CANARY_ID, marker="branch")
    else:
        open_.add(OPEN_CHILD, at=1796300200.0, parent=OPEN_ROOT, marker="branch")
    hidden.add(CANARY_ID, source=CANARY_SOURCE, title=CANARY_TITLE, preview=CANARY_WORDS)
    hidden.add(
        CANARY_CHILD,
        at=1796300300.0,
        parent=CANARY_ID,
        marker="branch",
        source="cli",
        title=CANARY_TITLE,
        preview=CANARY_WORDS,
    )
    for sid in (CANARY_ID, CANARY_CHILD):
        _canary_messages(hidden, sid)
    return open_, hidden


def index_rows(endpoint: str, fake: FakeHermes) -> None:
    """The index's copy of every row of ``fake`` (with its content), as a sync leaves it."""
    from hermes_ui.index.models import ContentMessage, ContentSession, IndexedSession
    from hermes_ui.sessions.models import SeenSource

    now = timezone.now()
    for sid, row in fake.rows.items():
        IndexedSession.objects.create(
            endpoint=endpoint,
            session_id=sid,
            source=row["source"],
            model=row.get("model") or "",
            title=row.get("title") or "",
            parent_session_id=row.get("parent_session_id") or "",
            started_at=row["started_at"],
            last_active=row["last_active"],
            message_count=row["message_count"],
            preview=row.get("preview") or "",
            lineage_root_id=OPEN_ROOT if endpoint == OPEN else CANARY_ID,
            order_key=row["last_active"],
            digest="d",
            visible_in_default_list=True,
            default_list_id=sid,
            kind="root" if not row.get("parent_session_id") else "branch",
            first_seen_at=now,
            last_seen_at=now,
        )
        ContentSession.objects.create(
            endpoint=endpoint,
            session_id=sid,
            resolved_id=sid,
            signature="s",
            messages=len(fake.messages[sid]),
            read_at=now,
        )
        for message in fake.messages[sid]:
            ContentMessage.objects.create(
                endpoint=endpoint,
                session_id=sid,
                message_id=message["id"],
                role=message["role"],
                timestamp=message["timestamp"],
                text=message["content"],
            )
        SeenSource.objects.get_or_create(endpoint=endpoint, source=row["source"])


@dataclass
class Planted:
    """The primary keys of the canary rows, by the name the kwarg table uses: the first
    planted (the hidden endpoint's) in ``pks``, each endpoint's own in ``of``."""

    pks: dict[str, object] = field(default_factory=dict)
    of: dict[str, dict[str, object]] = field(default_factory=dict)

    def pk(self, name: str, endpoint: str | None = None) -> str:
        """The row ``name`` of ``endpoint`` where one was planted there, else the first."""
        return str(self.of.get(endpoint or "", {}).get(name, self.pks[name]))


def plant(endpoint: str, owner, walker, planted: Planted) -> None:
    """Canary rows of the dashboard's own tables for the canary session on ``endpoint``,
    made by ``owner`` (an admin on ``*``), some addressed to ``walker`` (a mention, a
    notice, a watermark): what a page could show without asking Hermes."""
    from hermes_ui.audit.models import AuditEvent
    from hermes_ui.background.jobs.models import Job
    from hermes_ui.chat.models import Turn
    from hermes_ui.compare.models import Verdict
    from hermes_ui.deletion.models import DeletionBatch, DeletionRequest
    from hermes_ui.index.models import KnownFork
    from hermes_ui.live.models import LiveEvent, LiveNotice
    from hermes_ui.notifications.models import Notice
    from hermes_ui.retention.models import RetentionRule, RetentionRun
    from hermes_ui.review.models import Correction, Item, Mention, Note, Queue, Rubric
    from hermes_ui.shares.models import Share
    from hermes_ui.tags.models import SessionTag, Tag
    from hermes_ui.usage.models import Booking, DayTotal
    from hermes_ui.watermarks.models import Watermark

    now = timezone.now()
    sid = CANARY_ID
    words = f"{CANARY_WORDS} {CANARY_TITLE}"
    snapshot = {"id": sid, "title": CANARY_TITLE, "source": CANARY_SOURCE}
    mine = planted.of.setdefault(endpoint, {})

    def keep(name: str, value) -> None:
        mine[name] = value
        planted.pks.setdefault(name, value)

    # Rows of an endpoint the walker may see (the source pass's "open") that are no
    # session's own (a queue, a rule) are ordinary: the walker may read their names.
    named = CANARY_TITLE if endpoint == HIDDEN else "Ordinary name"
    rule_query = f"source:{CANARY_SOURCE}" if endpoint == HIDDEN else "source:telegram"
    audit = AuditEvent.objects.create(
        user=owner,
        username=owner.username,
        capability="session_rename",
        endpoint=endpoint,
        session_id=sid,
        outcome="succeeded",
        evidence={"title": CANARY_TITLE, "source": CANARY_SOURCE},
    )
    keep("audit", audit.pk)
    batch = DeletionBatch.objects.create(
        endpoint=endpoint,
        endpoint_fp="",
        requester=owner,
        requester_name=owner.username,
        reason=words,
        created_at=now,
    )
    keep("deletion_batch", batch.pk)
    request = DeletionRequest.objects.create(
        endpoint=endpoint,
        session_id=sid,
        requester=owner,
        requester_name=owner.username,
        reason=words,
        created_at=now,
        snapshot=snapshot,
        consequences={"children": [CANARY_CHILD]},
    )
    keep("deletion", request.pk)
    job = Job.objects.create(
        kind="export",
        endpoint=endpoint,
        user=walker,
        params={"session_id": sid, "q": CANARY_WORDS},
        result={"title": CANARY_TITLE},
    )
    keep("job", job.pk)
    turn = Turn.objects.create(
        endpoint=endpoint,
        requested_session_id=sid,
        target_session_id=sid,
        user=owner,
        form_key="k",
        message=words,
        answer=words,
    )
    keep("turn", turn.pk)
    Verdict.objects.create(
        endpoint=endpoint,
        first_id=sid,
        second_id=CANARY_CHILD,
        preferred_id=sid,
        reason=words,
        user=owner,
        username=owner.username,
    )
    rubric, _ = Rubric.objects.get_or_create(name="Ordinary rubric", defaults={"created_by": owner})
    keep("rubric", rubric.pk)
    queue = Queue.objects.create(endpoint=endpoint, name=named, rubric=rubric, owner=owner)
    keep("queue", queue.pk)
    item = Item.objects.create(endpoint=endpoint, session_id=sid, queue=queue, added_by=owner)
    keep("item", item.pk)
    note = Note.objects.create(
        endpoint=endpoint, session_id=sid, author=owner, author_name=owner.username, body=words
    )
    keep("note", note.pk)
    Mention.objects.create(note=note, user=walker)
    Correction.objects.create(
        endpoint=endpoint,
        session_id=sid,
        message_id=1,
        author=owner,
        author_name=owner.username,
        text=words,
    )
    tag, _ = Tag.objects.get_or_create(name="ordinary-tag", defaults={"created_by": owner})
    keep("tag", tag.pk)
    SessionTag.objects.create(endpoint=endpoint, session_id=sid, tag=tag, added_by=owner)
    rule = RetentionRule.objects.create(
        endpoint=endpoint, name=named, query=rule_query, age_days=30
    )
    keep("retention_rule", rule.pk)
    run = RetentionRun.objects.create(
        rule=rule, rule_version=1, endpoint=endpoint, protected=[sid], proposed=1, matched=1
    )
    keep("retention_run", run.pk)
    for model in (Booking, DayTotal):
        extra = {"session_id": sid, "booked_at": now} if model is Booking else {}
        model.objects.create(
            endpoint=endpoint,
            day=now.date() - dt.timedelta(days=1),
            source=CANARY_SOURCE,
            model=f"canary-model-{MARK}",
            input_tokens=7,
            **extra,
        )
    Watermark.objects.create(
        user=walker, endpoint=endpoint, session_id=sid, message_count=1, seen_at=now
    )
    KnownFork.objects.create(endpoint=endpoint, parent_id=sid, child_id=CANARY_CHILD, user=owner)
    share = Share.objects.create(
        endpoint=endpoint,
        session_id=sid,
        source=CANARY_SOURCE,
        kind="outside",
        digest=f"{MARK}-{endpoint}",
        created_by=owner,
        created_by_name=owner.username,
        expires_at=now + dt.timedelta(days=1),
        title=CANARY_TITLE,
        snapshot={"messages": [{"role": "user", "text": words, "at": None}]},
    )
    keep("share", share.pk)
    LiveEvent.objects.create(
        endpoint=endpoint, created_at=now, changes=[{"id": sid, "title": CANARY_TITLE}]
    )
    LiveNotice.objects.create(
        topic="deletions",
        kind="requested",
        endpoint=endpoint,
        created_at=now,
        ids={"request": request.pk, "session": sid},
        users=[walker.pk],
    )
    Notice.objects.create(
        user=walker,
        kind="mention",
        event="note.mention",
        mode="instant",
        endpoint=endpoint,
        session_id=sid,
        ids={"note_id": note.pk},
        created_at=now,
    )


def without_session_api(endpoint: str) -> None:
    """A stored probe saying ``endpoint`` has no session API: every page's banner names it."""
    from hermes_ui.endpoint_status.models import EndpointProbe

    EndpointProbe.objects.create(
        endpoint=endpoint,
        endpoint_fp=get_endpoint(endpoint).fingerprint,
        checked_at=timezone.now(),
        reachable=True,
        version=f"canary-version-{MARK}",
        key_accepted=True,
        operations=[],
    )


def instance_rows(owner, walker, planted: Planted) -> None:
    """Rows that belong to no endpoint but must stay out of a non-admin's reach."""
    from hermes_ui.api_tokens import tokens
    from hermes_ui.saved_views.models import SavedView
    from hermes_ui.webhooks.models import Delivery, Webhook

    hook = Webhook.objects.create(
        url=f"https://hooks.example/canary-{MARK}",
        secret=f"canary-secret-{MARK}",
        events=["session.deleted"],
    )
    planted.pks["webhook"] = hook.pk
    delivery = Delivery.objects.create(
        webhook=hook,
        event="session.deleted",
        body=f'{{"endpoint": "{HIDDEN}", "session": "{CANARY_ID}"}}',
        created_at=timezone.now(),
        next_attempt_at=timezone.now(),
    )
    planted.pks["delivery"] = delivery.pk
    token, _plain = tokens.issue(owner, f"canary token {MARK}")
    planted.pks["token"] = token.pk
    mine = SavedView.objects.create(owner=walker, name="Mine", q="title:ordinary")
    planted.pks["view"] = mine.pk


# --- the routes -------------------------------------------------------------------------

# Every kwarg a route may take, and where its value comes from: "endpoint" and
# "session_id" are the pass's own; a name in ``Planted.pks`` is that canary row's
# pk; anything else is a literal. A route with a kwarg this table does not know
# fails the walk: add the kwarg here (with the canary row it should point at).
KWARGS = {
    "endpoint": "endpoint",
    "session_id": "session_id",
    "event_id": "audit",
    "turn_id": "turn",
    "queue_id": "queue",
    "queue": "queue",
    "item_id": "item",
    "rubric_id": "rubric",
    "rule": "retention_rule",
    "run": "retention_run",
    "delivery": "delivery",
    "share_id": "share",
    "provider_id": "literal:keycloak",
    "uid": "literal:MQ",
    "token": "literal:set-password",
    "request_id": "deletion",
    "job_id": "job",
    "key": "literal:walk-key-0123456789",  # an Idempotency-Key: only its sender's outcome
}
# ``pk`` means a different row on each route: the route's name decides which.
PK_OF = {
    "deletion_detail": "deletion",
    "deletion_decide": "deletion",
    "deletion_execute": "deletion",
    "deletion_check": "deletion",
    "deletion_withdraw": "deletion",
    "deletion_follow_up": "deletion",
    "deletion_batch": "deletion_batch",
    "deletion_batch_decide": "deletion_batch",
    "deletion_batch_execute": "deletion_batch",
    "job": "job",
    "review_note_delete": "note",
    "tag_edit": "tag",
    "tag_delete": "tag",
    "view_edit": "view",
    "view_delete": "view",
    "token_revoke": "token",
    "webhook_detail": "webhook",
    "webhook_ping": "webhook",
    "webhook_delete": "webhook",
    "webhook_redeliver": "webhook",
    "share_approve": "share",
    "share_revoke": "share",
}
# Regex routes cannot be filled from converters: the URL each is walked at.
REGEX_URLS = {
    r"^api/(?P<rest>[\s\S]*)$": "/api/no-such-route",
    # SCIM answers a bearer secret, never a session: off (404) while HERMES_UI_SCIM_TOKEN
    # is empty, and no signed-in person's cookie counts there (tests/scim/).
    r"^scim/v2/$": "/scim/v2/",
    r"^scim/v2/Users/\.search$": "/scim/v2/Users/.search",
    r"^scim/v2/Users(?:/(?P<uuid>[^/]+))?$": "/scim/v2/Users",
    r"^scim/v2/Groups/\.search$": "/scim/v2/Groups/.search",
    r"^scim/v2/Groups(?:/(?P<uuid>[^/]+))?$": "/scim/v2/Groups",
    r"^scim/v2/Me$": "/scim/v2/Me",
    r"^scim/v2/Bulk$": "/scim/v2/Bulk",
    r"^scim/v2/ServiceProviderConfig$": "/scim/v2/ServiceProviderConfig",
    r"^scim/v2/ResourceTypes(?:/(?P<uuid>[^/]+))?$": "/scim/v2/ResourceTypes",
    r"^scim/v2/Schemas(?:/(?P<uuid>[^/]+))?$": "/scim/v2/Schemas",
}


class UnknownKwarg(LookupError):
    """A route takes a kwarg the walk's table does not know."""


@dataclass(frozen=True)
class Route:
    name: str
    pattern: str  # the full route, e.g. "e/<str:endpoint>/sessions/<path:session_id>/"
    kwargs: tuple[str, ...]
    regex: bool = False

    @property
    def session_scoped(self) -> bool:
        return "session_id" in self.kwargs or self.name.endswith("_q")

    @property
    def api(self) -> bool:
        return self.pattern.startswith(("api/", "^api/"))


def routes() -> list[Route]:
    """Every URL pattern of the resolver, recursively, with its kwargs."""
    found: list[Route] = []

    def walk(patterns, prefix: str, converters: dict):
        for entry in patterns:
            here = {**converters, **getattr(entry.pattern, "converters", {})}
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, prefix + str(entry.pattern), here)
                continue
            assert isinstance(entry, URLPattern)
            text = prefix + str(entry.pattern)
            regex = isinstance(entry.pattern, RegexPattern) and not isinstance(
                entry.pattern, RoutePattern
            )
            names = tuple(re.findall(r"<(?:\w+:)?(\w+)>", text)) if not regex else ()
            found.append(Route(entry.name or text, text, names, regex))

    walk(get_resolver().url_patterns, "", {})
    return found


def fill(route: Route, values: dict[str, str], planted: Planted) -> str:
    """The URL of ``route`` with its kwargs filled; ``_q`` routes get ``?id=``."""
    if route.regex:
        if route.pattern not in REGEX_URLS:
            raise UnknownKwarg(f"{route.name}: a regex route; add its URL to REGEX_URLS")
        return REGEX_URLS[route.pattern]

    def value(name: str) -> str:
        if name == "pk":
            if route.name not in PK_OF:
                raise UnknownKwarg(f"{route.name}: which row is its pk? add it to PK_OF")
            return planted.pk(PK_OF[route.name], values.get("endpoint"))
        if name not in KWARGS:
            raise UnknownKwarg(f"{route.name}: kwarg {name!r}; add it to KWARGS")
        source = KWARGS[name]
        if source in values:
            return values[source]
        if source.startswith("literal:"):
            return source.removeprefix("literal:")
        return planted.pk(source, values.get("endpoint"))

    url = "/" + re.sub(
        r"<(?:(\w+):)?(\w+)>",
        lambda m: quote(value(m.group(2)), safe="/" if m.group(1) == "path" else ""),
        route.pattern,
    )
    if route.name.endswith("_q"):
        url += "?id=" + quote(values["session_id"], safe="")
    return url


def api_fill(path: str, values: dict[str, str], planted: Planted) -> str:
    """An OpenAPI path (``/api/v1/e/{endpoint}/session/{session_id}``) with its params."""

    def value(m):
        name = m.group(1)
        if name not in KWARGS:
            raise UnknownKwarg(f"API {path}: parameter {name!r}; add it to KWARGS")
        source = KWARGS[name]
        if source in values:
            return quote(values[source], safe="/" if name == "session_id" else "")
        if source.startswith("literal:"):
            return source.removeprefix("literal:")
        return planted.pk(source, values.get("endpoint"))

    return re.sub(r"\{(\w+)(?::\w+)?\}", value, path)


# --- reading an answer ------------------------------------------------------------------

BODY_LIMIT = 512 * 1024


def text_of(response) -> str:
    """Headers and body (a stream read up to ``BODY_LIMIT``), lowercased."""
    if getattr(response, "streaming", False):
        if response.is_async:
            body = async_to_sync(_read_async)(response.streaming_content)
        else:
            body = _read(response.streaming_content)
    else:
        body = response.content[:BODY_LIMIT]
    headers = "\n".join(f"{k}: {v}" for k, v in response.items())
    return (headers + "\n" + body.decode("utf-8", "replace")).lower()


def _read(chunks) -> bytes:
    got = b""
    for chunk in chunks:
        got += chunk if isinstance(chunk, bytes) else str(chunk).encode()
        if len(got) >= BODY_LIMIT:
            break
    return got


async def _read_async(chunks) -> bytes:
    got = b""
    async for chunk in chunks:
        got += chunk if isinstance(chunk, bytes) else str(chunk).encode()
        if len(got) >= BODY_LIMIT:
            break
    await chunks.aclose()
    return got


def leaks(text: str, asked: tuple[str, ...] = ()) -> list[str]:
    """The canaries in ``text``, after taking out what the request itself named (a 404
    may repeat the id or endpoint it was asked for: that tells nothing)."""
    for echo in asked:
        text = text.replace(echo.lower(), "")
    return [what for canary, what in CANARIES.items() if canary in text]
