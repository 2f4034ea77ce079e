"""Every URL of the app x every role: allowed, or refused on the server.

The table is the specification. Each row names a URL (by its URL name), how
to call it, and the roles that get through; every other role gets a 403 and
anonymous visitors a redirect to the login page (unless the row is "open").
"Gets through" means neither refused nor sent to log in: the view may still
answer 400 for the empty form the matrix sends, or 409 for a step that does
not apply, which is its own business. Hermes is the ``recorder`` fixture
answering captured payloads, so no real peer is needed.

To cover a new view, add a ``Row``; ``test_every_url_has_a_row`` fails until
you do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

import httpx
import pytest
from django.conf import settings
from django.core.cache import caches
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from hermes_ui.api_tokens import tokens
from hermes_ui.audit.models import AuditEvent, Outcome
from hermes_ui.background.jobs.models import Job
from hermes_ui.chat.models import Turn, TurnState
from hermes_ui.deletion.models import DeletionBatch, DeletionRequest
from hermes_ui.index import refresher
from hermes_ui.platform.endpoints import Endpoint, get_endpoint
from hermes_ui.retention.models import RetentionRule, RetentionRun
from hermes_ui.review.models import Note
from hermes_ui.saved_views.models import SavedView
from hermes_ui.shares.models import Share
from hermes_ui.tags.models import Tag
from hermes_ui.web.links import session_url
from tests.support.module_rows import module_transaction
from tests.support.samples import response

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "support", "reviewer", "admin")
ANY = ("support", "reviewer", "admin")
REVIEWER_UP = ("reviewer", "admin")
ADMIN = ("admin",)
SID = "peer-demo"
DOT = ".."


@dataclass(frozen=True)
class Row:
    name: str  # the URL name; several rows may exercise one URL
    method: str
    url: Callable[[dict], str]
    allowed: tuple[str, ...]
    data: dict = field(default_factory=dict)
    open: bool = False  # reachable without logging in
    label: str = ""
    # Refused as "not found" rather than 403: others do not learn that it exists.
    hidden: bool = False
    # A page no one reaches (allauth's own sign-up pages): 403 for everyone, even anonymous.
    nobody: bool = False

    @property
    def id(self) -> str:
        return self.label or f"{self.method} {self.name}"


def deletion(view: str) -> Callable[[dict], str]:
    return lambda w: reverse(view, kwargs={"pk": w["deletion"]})


def change(view: str, event: str) -> Callable[[dict], str]:
    return lambda w: reverse(view, kwargs={"endpoint": "local", "event_id": w[event]})


def batch(view: str) -> Callable[[dict], str]:
    return lambda w: reverse(view, kwargs={"pk": w["batch"]})


def review(view: str, item: bool = False) -> Callable[[dict], str]:
    """A URL of the review queue (owned by ``reviewer``, open to any reviewer) and its item."""

    def url(w):
        from hermes_ui.review.models import Item, Queue

        scope = get_endpoint("local").scope()
        queue, _ = Queue.objects.get_or_create(
            **scope, name="matrix-core", defaults={"rubric": matrix_rubric()}
        )
        Queue.objects.filter(pk=queue.pk).update(owner=w["reviewer_id"])
        row, _ = Item.objects.get_or_create(queue=queue, **scope, session_id=SID)
        kwargs = {"endpoint": "local", "queue_id": queue.pk}
        return reverse(view, kwargs={**kwargs, "item_id": row.pk} if item else kwargs)

    return url


def matrix_rubric():
    """A rubric of its own (the shipped default may have been flushed by a transactional test)."""
    from hermes_ui.review import rubrics
    from hermes_ui.review.models import Rubric

    rubric, created = Rubric.objects.get_or_create(name="matrix-core")
    if created:
        rubrics.save(None, rubric, rubrics.DEFAULT_FIELDS, created=True)
    return rubric


def rubric_url(w) -> str:
    return reverse("review_rubric", kwargs={"rubric_id": matrix_rubric().pk})


def turn(view: str) -> Callable[[dict], str]:
    return lambda w: reverse(view, kwargs={"endpoint": "local", "turn_id": w["turn"]})


def review_queue(view: str) -> Callable[[dict], str]:
    """A page of a review queue nobody owns (so only admins change its rules)."""

    def url(w) -> str:
        from hermes_ui.review.models import Queue, Rubric

        rubric, _ = Rubric.objects.get_or_create(name="matrix")
        queue, _ = Queue.objects.get_or_create(
            **get_endpoint("local").scope(), name="matrix", defaults={"rubric": rubric}
        )
        return reverse(view, kwargs={"endpoint": "local", "queue": queue.pk})

    return url


def webhook(view: str, delivery: bool = False) -> Callable[[dict], str]:
    """A URL of a webhook (and of one of its deliveries), made on first use."""

    def url(w) -> str:
        from hermes_ui.webhooks import outbox
        from hermes_ui.webhooks.models import Webhook

        hook, _ = Webhook.objects.get_or_create(
            url="https://hooks.example.org/matrix", defaults={"secret": "s", "events": []}
        )
        if not delivery:
            return reverse(view, kwargs={"pk": hook.pk})
        sent = hook.deliveries.first() or outbox.ping(hook)
        return reverse(view, kwargs={"pk": hook.pk, "delivery": sent.pk})

    return url


# fmt: off
MATRIX = [
    # -- foundation ---------------------------------------------------------------------
    Row("home", "GET", lambda w: "/", ANY),
    Row("healthz", "GET", lambda w: "/healthz", ANY, open=True),
    Row("readyz", "GET", lambda w: "/readyz", ANY, open=True),
    # Its own Bearer token instead of a login (404 while HERMES_UI_METRICS_TOKEN is unset).
    Row("metrics", "GET", lambda w: "/metrics", ANY, open=True),
    # SCIM: the identity provider's Bearer token instead of a login (404 while
    # HERMES_UI_SCIM_TOKEN is unset; tests/scim/ covers the token).
    *(
        Row(name, "GET", lambda w, path=path: f"/scim/v2/{path}", ANY, open=True)
        for name, path in [
            ("scim-root", ""),
            ("users", "Users"),
            ("scim-users-search", "Users/.search"),
            ("groups", "Groups"),
            ("scim-groups-search", "Groups/.search"),
            ("scim-me", "Me"),
            ("scim-bulk", "Bulk"),
            ("service-provider-config", "ServiceProviderConfig"),
            ("resource-types", "ResourceTypes"),
            ("scim-schemas", "Schemas"),
        ]
    ),
    Row("login", "GET", lambda w: "/accounts/login/", ANY, open=True),
    Row("logout", "POST", lambda w: "/accounts/logout/", ANY, open=True),
    # -- single sign-on: the provider round trip is open; linking is for admins ----------
    Row("hermes_oidc_login", "POST", lambda w: "/accounts/oidc/hermes/login/", ANY, open=True),
    Row("hermes_oidc_callback", "GET", lambda w: "/accounts/oidc/hermes/login/callback/", ANY,
        open=True),
    Row("sso_break_glass", "GET", lambda w: "/accounts/break-glass/x/y/", ANY, open=True),
    # The provider's back-channel logout: server to server, its logout token is the check.
    Row("sso_backchannel_logout", "POST", lambda w: "/accounts/oidc/backchannel-logout/", ANY,
        open=True),
    Row("account_signup", "GET", lambda w: "/accounts/signup/", (), nobody=True),
    Row("socialaccount_signup", "GET", lambda w: "/accounts/social/signup/", (), nobody=True),
    Row("account_inactive", "GET", lambda w: "/accounts/inactive/", (), nobody=True),
    Row("sso_links", "GET", lambda w: "/account/sso/", ADMIN),
    # -- access: instance admins (admin on *) -----------------------------------------
    Row("access_page", "GET", lambda w: "/access/", ADMIN),
    Row("access_grant", "POST", lambda w: "/access/grant/", ADMIN),
    Row("access_revoke", "POST", lambda w: "/access/revoke/", ADMIN),
    Row("access_end_sessions", "POST", lambda w: "/access/end-sessions/", ADMIN),
    Row("session_list", "GET", lambda w: "/e/local/sessions/", ANY),
    Row("session_list", "GET", lambda w: "/e/local/sessions/?children=1", ADMIN,
        label="GET session_list include-children"),
    Row("session_detail_q", "GET", lambda w: f"/e/local/open/?id={SID}", ANY),
    Row("session_detail", "GET", lambda w: session_url("local", SID), ANY),
    Row("session_messages", "GET", lambda w: session_url("local", SID, "session_messages"), ANY),
    # -- changes: rename/close (support), create and fork (reviewer), audit (admin) -----
    Row("session_rename", "GET", lambda w: session_url("local", SID, "session_rename"), ANY),
    Row("session_rename", "POST", lambda w: session_url("local", SID, "session_rename"), ANY),
    Row("session_create", "GET", lambda w: "/e/local/new/", REVIEWER_UP),
    Row("session_create", "POST", lambda w: "/e/local/new/", REVIEWER_UP),
    Row("session_flag", "POST", lambda w: session_url("local", SID, "session_flag"), ANY),
    Row("session_fork", "GET", lambda w: session_url("local", SID, "session_fork"), REVIEWER_UP),
    Row("session_fork", "POST", lambda w: session_url("local", SID, "session_fork"), REVIEWER_UP),
    # Outcome pages: the change's actor (here "reviewer") and admins, nobody else.
    Row("change_outcome", "GET", change("change_outcome", "patch_event"), REVIEWER_UP,
        label="GET change_outcome of a rename"),
    Row("change_outcome", "GET", change("change_outcome", "fork_event"), REVIEWER_UP,
        label="GET change_outcome of a fork"),
    Row("change_check", "GET", change("change_check", "patch_event"), REVIEWER_UP,
        label="GET change_check of a rename"),
    Row("change_check", "GET", change("change_check", "fork_event"), REVIEWER_UP,
        label="GET change_check of a fork"),
    Row("change_check", "POST", change("change_check", "patch_event"), REVIEWER_UP,
        label="POST change_check of a rename"),
    Row("change_check", "POST", change("change_check", "fork_event"), REVIEWER_UP,
        label="POST change_check of a fork"),
    Row("audit_log", "GET", lambda w: "/audit/", ADMIN),
    # -- chat: support and above continue a session ---------------------------------------
    Row("session_chat", "GET", lambda w: session_url("local", SID, "session_chat"), ANY),
    Row("session_chat", "POST", lambda w: session_url("local", SID, "session_chat"), ANY),
    Row("chat_turn", "GET", turn("chat_turn"), ANY),
    Row("chat_turn_stream", "GET", turn("chat_turn_stream"), ANY),
    Row("chat_turn_cancel", "POST", turn("chat_turn_cancel"), ANY),
    # -- live updates: everyone who reads the lists follows their changes -------------------
    Row("live_stream", "GET", lambda w: "/e/local/live/?after=0", ANY),
    # Dashboard notices: the deletion queue's stream (each hears of what its queue shows)
    # and a review queue's (its readers).
    Row("live_deletions", "GET", lambda w: "/live/deletions/?after=0", ANY),
    Row("live_review", "GET", review("live_review"), REVIEWER_UP),
    # -- lineage and the index: everyone reads; only admins start a full sweep ---------
    Row("lineage_page", "GET", lambda w: session_url("local", SID, "lineage_page"), ANY),
    Row("lineage_panel", "GET", lambda w: session_url("local", SID, "lineage_panel"), ANY),
    Row("index_moved", "GET", lambda w: "/e/local/index/", ANY),
    Row("session_list", "GET", lambda w: "/e/local/sessions/?q=refund+role%3Auser+open%3Ayes", ANY,
        label="GET session_list transcript search"),
    Row("index_status", "GET", lambda w: "/e/local/index/status/", ANY),
    Row("index_refresh", "POST", lambda w: "/e/local/index/refresh/", ANY),
    Row("index_refresh", "POST", lambda w: "/e/local/index/refresh/", ADMIN, data={"full": "1"},
        label="POST index_refresh full sweep"),
    # -- deletion: anyone asks; admins review and execute; requesters see their own -----
    # -- the query-string form of each session action (ids "." and "..") ----------------
    Row("session_detail_q", "GET", lambda w: session_url("local", DOT), ANY, label="GET open .."),
    Row("session_messages_q", "GET", lambda w: session_url("local", DOT, "session_messages"), ANY),
    Row("session_rename_q", "GET", lambda w: session_url("local", DOT, "session_rename"), ANY),
    Row("session_rename_q", "POST", lambda w: session_url("local", DOT, "session_rename"), ANY),
    Row("session_flag_q", "POST", lambda w: session_url("local", DOT, "session_flag"), ANY),
    Row("session_fork_q", "GET", lambda w: session_url("local", DOT, "session_fork"), REVIEWER_UP),
    Row("session_fork_q", "POST", lambda w: session_url("local", DOT, "session_fork"),
        REVIEWER_UP),
    Row("session_chat_q", "GET", lambda w: session_url("local", DOT, "session_chat"), ANY),
    Row("session_chat_q", "POST", lambda w: session_url("local", DOT, "session_chat"), ANY),
    Row("lineage_page_q", "GET", lambda w: session_url("local", DOT, "lineage_page"), ANY),
    Row("lineage_panel_q", "GET", lambda w: session_url("local", DOT, "lineage_panel"), ANY),
    Row("compare_panel_q", "GET", lambda w: session_url("local", DOT, "compare_panel"), ANY),
    Row("deletion_new", "GET", lambda w: f"/e/local/deletions/new/?session={SID}", ANY),
    Row("deletion_new", "POST", lambda w: "/e/local/deletions/new/", ANY, data={"session": SID}),
    Row("deletion_queue", "GET", lambda w: "/deletions/", ANY),
    # The request in the matrix was made by "support": it and admins may see it.
    Row("deletion_detail", "GET", deletion("deletion_detail"), ("support", "admin")),
    Row("deletion_decide", "POST", deletion("deletion_decide"), ADMIN),
    Row("deletion_execute", "POST", deletion("deletion_execute"), ADMIN),
    Row("deletion_check", "POST", deletion("deletion_check"), ADMIN),
    Row("deletion_withdraw", "POST", deletion("deletion_withdraw"), ("support", "admin")),
    Row("deletion_follow_up", "POST", deletion("deletion_follow_up"), ("support", "admin")),
    # -- bulk: anyone closes or asks for deletion of a selection; admins review a batch --
    Row("bulk_close", "POST", lambda w: "/e/local/bulk/close/", ANY, data={"ids": SID}),
    Row("bulk_archive", "POST", lambda w: "/e/local/bulk/archive/", ANY, data={"ids": SID}),
    Row("bulk_delete", "POST", lambda w: "/e/local/bulk/delete/", ANY, data={"ids": SID}),
    Row("deletion_batch", "GET", batch("deletion_batch"), ("support", "admin")),
    Row("deletion_batch_decide", "POST", batch("deletion_batch_decide"), ADMIN),
    Row("deletion_batch_execute", "POST", batch("deletion_batch_execute"), ADMIN),
    # -- background jobs: the person who started one (here "support") and admins ---------
    Row("job", "GET", lambda w: reverse("job", kwargs={"pk": w["job"]}), ("support", "admin"),
        hidden=True),
    # -- endpoints: everyone sees their health -------------------------------------------
    Row("endpoint_list", "GET", lambda w: "/endpoints/", ANY),
    Row("endpoint_probe", "POST", lambda w: "/endpoints/probe/", ANY),
    # -- compare and review: everyone compares; reviewers record verdicts ------------------
    Row("compare", "GET", lambda w: f"/e/local/compare/?a={SID}&b=other", ANY),
    Row("compare_verdict", "POST", lambda w: "/e/local/compare/verdict/", REVIEWER_UP,
        data={"a": SID, "b": "other", "choice": "a", "reason": "matrix"}),
    Row("compare_to_review", "GET", lambda w: "/e/local/compare/to-review/", ANY),
    Row("compare_panel", "GET", lambda w: session_url("local", SID, "compare_panel"), ANY),
    # -- usage: everyone reads an endpoint's usage; admins all endpoints at once -------------
    Row("usage", "GET", lambda w: "/e/local/usage/", ANY),
    Row("usage", "GET", lambda w: "/e/local/usage/?format=csv", ANY, label="GET usage csv"),
    Row("usage_all", "GET", lambda w: "/usage/", ADMIN),
    Row("usage_all", "GET", lambda w: "/usage/?format=csv", ADMIN, label="GET usage_all csv"),
    # -- export: everyone downloads (support always redacted) --------------------------------
    Row("session_export", "GET",
        lambda w: session_url("local", SID, "session_export", format="json"), ANY),
    Row("session_export_q", "GET",
        lambda w: session_url("local", DOT, "session_export", format="md"), ANY),
    # -- tags: admins manage the list; reviewers and admins tag sessions -------------------
    Row("tag_list", "GET", lambda w: "/tags/", ADMIN),
    Row("tag_list", "POST", lambda w: "/tags/", ADMIN, data={"name": "matrix", "colour": "red"}),
    Row("tag_edit", "POST", lambda w: f"/tags/{w['tag']}/", ADMIN, data={"name": "x"}),
    Row("tag_delete", "POST", lambda w: f"/tags/{w['tag']}/delete/", ADMIN),
    Row("notification_preferences", "GET", lambda w: "/account/notifications/", ANY),
    Row("notification_preferences", "POST", lambda w: "/account/notifications/", ANY,
        data={"mentioned": "never"}),
    Row("notification_mail", "GET", lambda w: "/notifications/mail/", ADMIN),
    Row("webhook_list", "GET", lambda w: "/webhooks/", ADMIN),
    Row("webhook_list", "POST", lambda w: "/webhooks/", ADMIN,
        data={"url": "https://hooks.example.org/x", "events": ["endpoint.down"]}),
    Row("webhook_detail", "GET", webhook("webhook_detail"), ADMIN),
    Row("webhook_detail", "POST", webhook("webhook_detail"), ADMIN,
        data={"url": "https://hooks.example.org/y", "events": ["endpoint.up"]}),
    Row("webhook_ping", "POST", webhook("webhook_ping"), ADMIN),
    Row("webhook_redeliver", "POST", webhook("webhook_redeliver", delivery=True), ADMIN),
    Row("webhook_delete", "POST", webhook("webhook_delete"), ADMIN),
    Row("session_tags", "POST", lambda w: session_url("local", SID, "session_tags"), REVIEWER_UP,
        data={"op": "add", "tag": "0"}),
    Row("session_tags_q", "POST", lambda w: session_url("local", DOT, "session_tags"),
        REVIEWER_UP),
    Row("bulk_tags", "POST", lambda w: "/e/local/bulk/tags/", REVIEWER_UP, data={"ids": SID}),
    # -- retention: admins only -------------------------------------------------------
    Row("retention", "GET", lambda w: "/retention/", ADMIN),
    Row("retention_keep_tags", "POST", lambda w: "/retention/keep-tags/", ADMIN,
        data={"op": "add", "tag": "matrix-tag"}),
    Row("retention_rules", "GET", lambda w: "/e/local/retention/", ADMIN),
    Row("retention_rules", "POST", lambda w: "/e/local/retention/", ADMIN,
        data={"name": "matrix", "query": "source:cron", "age_days": "30"}),
    Row("retention_rule", "GET", lambda w: f"/e/local/retention/{w['retention_rule']}/", ADMIN),
    Row("retention_rule", "POST", lambda w: f"/e/local/retention/{w['retention_rule']}/", ADMIN,
        data={"name": "renamed", "query": "source:cron", "age_days": "31"}),
    Row("retention_preview", "GET",
        lambda w: f"/e/local/retention/{w['retention_rule']}/preview/", ADMIN),
    Row("retention_run_now", "POST",
        lambda w: f"/e/local/retention/{w['retention_rule']}/run/", ADMIN),
    Row("retention_run", "GET",
        lambda w: f"/e/local/retention/runs/{w['retention_run']}/", ADMIN),
    # -- saved views: everyone saves their own; the owner changes it; admins delete shared --
    Row("view_list", "GET", lambda w: "/e/local/views/", ANY),
    Row("view_save", "POST", lambda w: "/e/local/views/save/", ANY,
        data={"name": "matrix", "q": "refund"}),
    Row("view_default", "POST", lambda w: "/e/local/views/default/", ANY, data={"key": "all"}),
    # A personal view of "support": nobody else learns that it exists.
    Row("view_edit", "POST", lambda w: f"/e/local/views/{w['view']}/", ("support",),
        data={"name": "renamed"}, hidden=True),
    Row("view_delete", "POST", lambda w: f"/e/local/views/{w['view']}/delete/", ("support",),
        hidden=True, label="POST view_delete of a personal view"),
    # A view "reviewer" shared: others see it; its owner and admins delete it.
    Row("view_delete", "POST", lambda w: f"/e/local/views/{w['shared_view']}/delete/",
        REVIEWER_UP, label="POST view_delete of a shared view"),
    # -- review queues (core) ----------------------------------------------------------
    Row("review_queues", "GET", lambda w: "/e/local/review/", REVIEWER_UP),
    Row("review_queues", "POST", lambda w: "/e/local/review/", REVIEWER_UP),
    Row("review_queue", "GET", review("review_queue"), REVIEWER_UP),
    Row("review_queue", "POST", review("review_queue"), REVIEWER_UP),  # its owner, and admins
    Row("review_next", "GET", review("review_next"), REVIEWER_UP),
    Row("review_item", "GET", review("review_item", item=True), REVIEWER_UP),
    Row("review_item", "POST", review("review_item", item=True), REVIEWER_UP),
    Row("review_authoritative", "POST", review("review_authoritative", item=True), ADMIN),
    Row("review_add", "GET", lambda w: session_url("local", SID, "review_add"), REVIEWER_UP),
    Row("review_add", "POST", lambda w: session_url("local", SID, "review_add"), REVIEWER_UP),
    Row("review_add_q", "POST", lambda w: session_url("local", DOT, "review_add"), REVIEWER_UP),
    Row("review_bulk_add", "POST", lambda w: "/e/local/review/bulk-add/", REVIEWER_UP,
        data={"ids": SID}),
    Row("review_rubrics", "GET", lambda w: "/review/rubrics/", ADMIN),
    Row("review_rubric_new", "GET", lambda w: "/review/rubrics/new/", ADMIN),
    Row("review_rubric_new", "POST", lambda w: "/review/rubrics/new/", ADMIN),
    Row("review_rubric", "GET", rubric_url, ADMIN),
    Row("review_rubric", "POST", rubric_url, ADMIN),
    # -- review notes, mentions, corrections: everyone notes; reviewers correct ------------
    Row("review_notes", "GET", lambda w: session_url("local", SID, "review_notes"), ANY),
    Row("review_notes", "GET", lambda w: session_url("local", SID, "review_notes", message=2),
        ANY, label="GET review_notes of a message"),
    Row("review_notes", "POST", lambda w: session_url("local", SID, "review_notes"), ANY,
        data={"body": "matrix"}),
    Row("review_notes_q", "GET", lambda w: session_url("local", DOT, "review_notes"), ANY),
    Row("review_notes_q", "POST", lambda w: session_url("local", DOT, "review_notes"), ANY,
        data={"body": "matrix"}),
    # The note in the matrix was written by "support": it and admins may delete it.
    Row("review_note_delete", "POST",
        lambda w: reverse("review_note_delete", args=["local", w["note"]]), ("support", "admin")),
    Row("review_correction", "GET",
        lambda w: session_url("local", SID, "review_correction", message=2), REVIEWER_UP),
    Row("review_correction", "POST", lambda w: session_url("local", SID, "review_correction"),
        REVIEWER_UP, data={"message": "2", "text": "matrix"}),
    Row("review_correction_q", "GET",
        lambda w: session_url("local", DOT, "review_correction", message=2), REVIEWER_UP),
    Row("review_correction_q", "POST", lambda w: session_url("local", DOT, "review_correction"),
        REVIEWER_UP, data={"message": "2", "text": "matrix"}),
    Row("mentions", "GET", lambda w: "/mentions/", ANY),
    Row("mentions_read", "POST", lambda w: "/mentions/read/", ANY, data={"all": "1"}),
    # -- review rules (reviewers see them, the owner or an admin changes them) and datasets --
    Row("review_rules", "GET", review_queue("review_rules"), REVIEWER_UP),
    Row("review_rules", "POST", review_queue("review_rules"), ADMIN,
        data={"query": "closed:yes", "percent": "50"}),
    Row("review_dataset", "GET", review_queue("review_dataset"), ANY),
    Row("review_dataset_search", "GET", lambda w: "/e/local/review/dataset/?q=closed:yes", ANY),
    # -- personal API tokens, and the API's docs pages (its routes: tests/api/) -------------
    Row("token_list", "GET", lambda w: "/account/tokens/", ANY),
    Row("token_list", "POST", lambda w: "/account/tokens/", ANY, data={"name": "m", "days": "1"}),
    Row("token_revoke", "POST", lambda w: f"/account/tokens/{w['token']}/revoke/", ADMIN,
        hidden=True, label="someone else's"),
    Row("openapi-json", "GET", lambda w: "/api/v1/openapi.json", ANY, open=True),
    Row("openapi-view", "GET", lambda w: "/api/v1/docs", ANY),
    Row("api_not_found", "GET", lambda w: "/api/v1/nowhere", ANY, open=True),
    # -- share links: admin2's outside link of SID (the world turns outside links on) -------
    Row("share_new", "GET", lambda w: session_url("local", SID, "share_new"), ANY),
    Row("share_new", "POST", lambda w: session_url("local", SID, "share_new"), ANY),
    Row("share_new_q", "GET", lambda w: session_url("local", DOT, "share_new"), ANY),
    Row("share_list", "GET", lambda w: "/shares/", ANY),
    Row("share_approve", "POST", lambda w: f"/shares/{w['share']}/approve/", ADMIN),
    Row("share_revoke", "POST", lambda w: f"/shares/{w['share']}/revoke/", ADMIN,
        label="someone else's share"),
    # The link decides itself (tests/shares): an unknown one is a 404 for everyone.
    Row("share_open", "GET", lambda w: "/s/no-such-link/", ANY, open=True),
]
# fmt: on
# The API's routes answer a Bearer token only (a session is a 401, not the login page):
# tests/api/test_role_matrix.py holds each of them against every role.
API_ROUTES = "api_v1"


def _hermes(request: httpx.Request) -> httpx.Response:
    """Captured answers for every read; mutations get a 404 they never reach here."""
    path = request.url.raw_path.decode().split("?")[0]
    if request.method != "GET":
        return httpx.Response(404, json={"error": {"code": "no_route", "message": "matrix"}})
    if path == "/api/sessions":
        return response("120_list")
    if path.endswith("/messages"):
        return response("090_messages")
    return response("030_get")


def _rows(users) -> dict:
    """The rows the matrix's URLs name, by the name its ``Row.url`` functions use."""
    turn_row = Turn.objects.create(
        endpoint="local",
        requested_session_id=SID,
        target_session_id=SID,
        user=users["support"],
        form_key="matrix-turn",
        message="hello",
        state=TurnState.COMPLETED,
    )
    case = DeletionRequest.objects.create(
        endpoint="local",
        session_id=SID,
        requester=users["support"],
        requester_name="support",
        reason="matrix",
        created_at=timezone.now(),
        snapshot={
            "row": {"id": SID},
            "active_message_count": 0,
            "digest": "0" * 64,
            "resolved_session_id": SID,
        },
        consequences={"cascade": [], "survivors": [], "listed_rows": 1},
    )
    bulk = DeletionBatch.objects.create(
        endpoint="local",
        endpoint_fp=get_endpoint("local").fingerprint,
        requester=users["support"],
        requester_name="support",
        reason="matrix",
        created_at=timezone.now(),
    )
    events = {
        name: AuditEvent.objects.create(
            user=users["reviewer"],
            username="reviewer",
            capability=capability,
            **get_endpoint("local").scope(),
            session_id=SID,
            outcome=Outcome.SUCCESS,
            evidence={"session_id": SID},
        ).pk
        for name, capability in [("patch_event", "session_patch"), ("fork_event", "session_fork")]
    }
    job = Job.objects.create(
        kind="bulk_close", endpoint="local", user=users["support"], state="done", done=1, total=1
    )
    tag = Tag.objects.create(name="matrix-tag")
    personal = SavedView.objects.create(owner=users["support"], name="mine", q="refund")
    shared = SavedView.objects.create(owner=users["reviewer"], name="ours", q="x", shared=True)
    views = {"tag": tag.pk, "view": personal.pk, "shared_view": shared.pk}
    rule = RetentionRule.objects.create(
        **get_endpoint("local").scope(),
        name="matrix rule",
        query="source:cron",
        age_days=30,
        updated_by=users["admin"],
    )
    run = RetentionRun.objects.create(rule=rule, rule_version=1, **get_endpoint("local").scope())
    views.update(retention_rule=rule.pk, retention_run=run.pk)
    note = Note.objects.create(
        **get_endpoint("local").scope(),
        session_id=SID,
        author=users["support"],
        author_name="support",
        body="matrix",
    )
    token, _ = tokens.issue(users["admin2"], "matrix")
    share = Share.objects.create(
        **get_endpoint("local").scope(),
        session_id=SID,
        kind="outside",
        digest="matrix",
        created_by=users["admin2"],
        created_by_name="admin2",
        expires_at=timezone.now() + timedelta(days=1),
    )
    return {
        "share": share.pk,
        "token": token.pk,
        "deletion": case.pk,
        "turn": turn_row.pk,
        "batch": bulk.pk,
        "job": job.pk,
        "reviewer_id": users["reviewer"].pk,
        "note": note.pk,
        **events,
        **views,
    }


@pytest.fixture(scope="module")
def matrix_world(django_db_setup, django_db_blocker):
    """The people, a signed-in session of each and the rows the URLs name, made once for
    the module (``tests/support/module_rows.py``): every test starts from the same rows.
    Yields (the rows' keys, each role's session key)."""
    from django.test import override_settings

    from tests.conftest import TEST_KEY, make_users

    local = Endpoint("local", "http://hermes.test", TEST_KEY)  # as ``mock_endpoint``
    with module_transaction(django_db_blocker):
        with (
            django_db_blocker.unblock(),
            override_settings(
                HERMES_ENDPOINTS={"local": local},
                HERMES_ENDPOINT_ID="local",
                PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
            ),
        ):
            users = make_users()
            rows = _rows(users)
            sessions = {}
            for role in ANY:
                client = Client()
                client.force_login(users[role])
                sessions[role] = client.cookies[settings.SESSION_COOKIE_NAME].value
        yield rows, sessions


@pytest.fixture
def world(matrix_world, recorder, monkeypatch):
    recorder.default = _hermes
    # The matrix checks who gets through, not the sync itself: no background thread.
    monkeypatch.setattr(refresher, "sync_in_background", lambda endpoint, full: None)
    monkeypatch.setattr(settings, "HERMES_UI_SHARING", "outside")
    # A session a view changed is rolled back in the table, not in its cache.
    caches[settings.SESSION_CACHE_ALIAS].clear()
    return matrix_world[0]


def _client(role: str, matrix_world) -> Client:
    """A client signed in as ``role`` (a session made once per module, as ``force_login``)."""
    client = Client()
    if role != "anonymous":
        client.cookies[settings.SESSION_COOKIE_NAME] = matrix_world[1][role]
    return client


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("row", MATRIX, ids=lambda row: row.id)
def test_role_matrix(row: Row, role: str, world, matrix_world):
    client = _client(role, matrix_world)
    url = row.url(world)
    answer = client.get(url) if row.method == "GET" else client.post(url, row.data)
    to_login = answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")
    if row.nobody:
        assert answer.status_code == 403, f"{row.id}: {role} got {answer.status_code}"
    elif role == "anonymous" and not row.open:
        assert to_login, f"{row.id}: anonymous got {answer.status_code}, not the login page"
    elif row.open:
        # Open rows (health, login, logout) answer everyone; logout sends all to log in.
        assert answer.status_code not in (403, 500), f"{row.id}: {role} got {answer.status_code}"
    elif role in row.allowed:
        assert answer.status_code != 403 and not to_login, (
            f"{row.id}: {role} should be allowed, got {answer.status_code}"
        )
        assert answer.status_code < 500, f"{row.id}: {role} got a server error"
    else:
        refused = 404 if row.hidden else 403
        assert answer.status_code == refused, (
            f"{row.id}: {role} should be refused, got {answer.status_code}"
        )


def _names(patterns) -> set[str]:
    names = set()
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = _names(pattern.url_patterns)
            if pattern.namespace == API_ROUTES:
                inner &= {"openapi-json", "openapi-view"}
            names |= inner
        elif isinstance(pattern, URLPattern) and pattern.name:
            names.add(pattern.name)
    return names


def test_every_url_has_a_row():
    missing = _names(get_resolver().url_patterns) - {row.name for row in MATRIX}
    assert not missing, (
        f"URLs without a row in tests/deletion/test_role_matrix.py MATRIX: {sorted(missing)}. "
        "Add one saying which roles may use each."
    )


def test_a_refused_deletion_step_is_audited(world, matrix_world):
    execute = reverse("deletion_execute", kwargs={"pk": world["deletion"]})
    _client("support", matrix_world).post(execute)
    event = AuditEvent.objects.get(capability="session_delete")
    assert (event.outcome, event.error_code, event.username) == ("refused", "wrong_role", "support")
