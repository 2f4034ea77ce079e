"""axe-core (WCAG 2.1 A and AA) on every page a person can reach, and the top bar at 390 px.

One dashboard, one browser: every GET pattern of the URL resolver is opened with
seeded rows (as an admin, who sees every page), or named in ``SKIPPED`` with why.
"""

import json
import subprocess
import sys
from collections import defaultdict
from urllib.parse import quote

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from devtools.peer import demo_ids as ids
from tests.support.browser import (
    REPO,
    DashboardServer,
    assert_no_csp_violations,
    log_in,
    screenshot,
    wait_for_js,
    watched_context,
)

pytestmark = [pytest.mark.browser, pytest.mark.peer]

AXE = REPO / "devtools" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
SESSION = ids.TOOL_SESSION
SHARE = "a11y-share-token-0123456789abcdef0123456789a"  # an inside link of SESSION

# Rows the pages show, made in the dashboard's own database (``manage.py shell``):
# each state a list draws differently at least once. Their ids are printed as JSON.
SEED = f"""
import json
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.utils import timezone
from hermes_ui.api_tokens.models import ApiToken
from hermes_ui.audit.models import AuditEvent
from hermes_ui.chat.models import Turn
from hermes_ui.deletion.models import DeletionBatch, DeletionRequest
from hermes_ui.background.jobs.models import Job
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.retention.models import RetentionRule, RetentionRun, RuleVersion
from hermes_ui.review.models import Item, Mention, Note, Queue, Rubric, RubricVersion, Rule
from hermes_ui.saved_views.models import SavedView
from hermes_ui.tags.models import SessionTag, Tag
from hermes_ui.webhooks.models import Delivery, Webhook

users = {{u.username: u for u in get_user_model().objects.all()}}
admin, support = users["admin"], users["support"]
now = timezone.now()
sid = {SESSION!r}
here = get_endpoint("local").scope()
made = {{}}
for status in ["pending", "approved", "rejected", "expired", "executed", "uncertain", "void"]:
    made["deletion_" + status] = DeletionRequest.objects.create(
        **here, session_id=sid, requester=support, requester_name="support",
        reason="asked by the customer", created_at=now, status=status,
        snapshot={{"row": {{"id": sid, "title": "Check disk usage"}}, "active_message_count": 3}},
    ).pk
batch = DeletionBatch.objects.create(
    **here, requester=support, requester_name="support",
    reason="old sessions", created_at=now,
)
DeletionRequest.objects.filter(pk=made["deletion_pending"]).update(batch=batch)
made["batch"] = batch.pk
made["event"] = AuditEvent.objects.create(
    user=admin, username="admin", capability="session_patch", **here,
    session_id=sid, outcome="success", http_status=200,
).pk
made["turn"] = Turn.objects.create(
    **here, requested_session_id=sid, target_session_id=sid, user=admin,
    form_key="a11y", message="hello", state="completed", answer="Hi there.",
).pk
made["job"] = Job.objects.create(
    kind="bulk_close", **here, user=admin, state="done", done=2, total=2
).pk
rubric = Rubric.objects.create(name="Quality", is_default=True, created_by=admin)
RubricVersion.objects.create(rubric=rubric, number=1, created_by=admin, fields=[
    {{"key": "ok", "label": "Helpful", "type": "bool", "applies": "session"}},
    {{"key": "tone", "label": "Tone", "type": "choice", "choices": ["good", "bad"],
      "applies": "session"}},
])
made["rubric"] = rubric.pk
queue = Queue.objects.create(**here, name="Weekly sample", rubric=rubric, owner=admin)
made["queue"] = queue.pk
made["item"] = Item.objects.create(queue=queue, **here, session_id=sid).pk
Rule.objects.create(queue=queue, query="source:cli", percent=50, created_by=admin)
note = Note.objects.create(**here, session_id=sid, author=support,
                           author_name="support", body="@admin please look")
Mention.objects.create(note=note, user=admin)
tag = Tag.objects.create(name="billing", colour="blue", created_by=admin)
SessionTag.objects.create(**here, session_id=sid, tag=tag, added_by=admin)
made["tag"] = tag.pk
for owner in (admin, support):
    for name, q in [("Billing", "tag:billing"), ("From cron", "source:cron")]:
        view = SavedView.objects.create(owner=owner, name=name, q=q, shared=name == "Billing")
made["view"] = SavedView.objects.filter(owner=admin).first().pk
hook = Webhook.objects.create(url="https://hooks.example.com/hermes", secret="s" * 32,
                              events=["deletion.executed"], created_by_name="admin")
Delivery.objects.create(webhook=hook, event="deletion.executed", body="{{}}",
                        created_at=now, next_attempt_at=now, state="failed", attempts=3,
                        last_code=500, last_error="http_500", finished_at=now)
made["webhook"] = hook.pk
rule = RetentionRule.objects.create(**here, name="Old cron", query="source:cron",
                                    age_days=90, updated_by=admin)
RuleVersion.objects.create(rule=rule, number=1, name=rule.name, query=rule.query,
                           age_days=90, changed_by_name="admin")
made["retention_rule"] = rule.pk
made["retention_run"] = RetentionRun.objects.create(
    rule=rule, rule_version=1, **here, batch_id=batch.pk, proposed=1, matched=2
).pk
ApiToken.objects.create(user=admin, name="CI export", key_id="a11ya11ya11y",
                        digest="0" * 64, created_at=now, expires_at=now + timedelta(days=30))
from hermes_ui.shares.links import digest as share_digest
from hermes_ui.shares.models import Share
Share.objects.create(**here, session_id=sid, source="cli", digest=share_digest({SHARE!r}),
                     created_by=admin, created_by_name="admin", title="Disk usage",
                     expires_at=now + timedelta(days=7),
                     snapshot={{"messages": [{{"role": "user", "text": "How much disk?"}}]}})
print(json.dumps(made))
"""


def _s(session_id: str = SESSION) -> str:
    return quote(session_id, safe="")


def pages(made: dict) -> dict[str, str]:
    """Each URL name the walk opens: its path, with the seeded rows' ids."""
    e = "/e/local"
    queue, item = made["queue"], made["item"]
    rule = made["retention_rule"]
    return {
        "home": "/",
        "session_list": f"{e}/sessions/",
        "session_detail": f"{e}/sessions/{_s()}/",
        "lineage_page": f"{e}/lineage/{_s(ids.DELEGATE_PARENT)}/",
        "session_create": f"{e}/new/",
        "session_rename": f"{e}/rename/{_s()}/",
        "session_fork": f"{e}/fork/{_s()}/",
        "change_outcome": f"{e}/changes/{made['event']}/",
        "session_chat": f"{e}/chat/{_s()}/",
        "chat_turn": f"{e}/turns/{made['turn']}/",
        "deletion_queue": "/deletions/",
        "deletion_detail": f"/deletions/{made['deletion_pending']}/",
        "deletion_batch": f"/deletions/batch/{made['batch']}/",
        "audit_log": "/audit/",
        "compare": f"{e}/compare/?a={ids.BRANCH_A}&b={ids.BRANCH_B}",
        "compare_to_review": f"{e}/compare/to-review/",
        "endpoint_list": "/endpoints/",
        "job": f"/jobs/{made['job']}/",
        "review_queues": f"{e}/review/",
        "review_queue": f"{e}/review/{queue}/",
        "review_item": f"{e}/review/{queue}/items/{item}/",
        "review_add": f"{e}/review-add/{_s()}/",
        "review_rubrics": "/review/rubrics/",
        "review_rubric_new": "/review/rubrics/new/",
        "review_rubric": f"/review/rubrics/{made['rubric']}/",
        "review_notes": f"{e}/notes/{_s()}/",
        "review_correction": f"{e}/correction/{_s()}/?message={made['message']}",
        "mentions": "/mentions/",
        "review_rules": f"{e}/review/{queue}/rules/",
        "review_dataset": f"{e}/review/{queue}/dataset/",
        "review_dataset_search": f"{e}/review/dataset/?q=",
        "usage": f"{e}/usage/",
        "usage_all": "/usage/",
        "tag_list": "/tags/",
        "view_list": f"{e}/views/",
        "sso_links": "/account/sso/",
        "access_page": "/access/",
        "token_list": "/account/tokens/",
        "notification_preferences": "/account/notifications/",
        "notification_mail": "/notifications/mail/",
        "webhook_list": "/webhooks/",
        "webhook_detail": f"/webhooks/{made['webhook']}/",
        "retention": "/retention/",
        "retention_rules": f"{e}/retention/",
        "retention_rule": f"{e}/retention/{rule}/",
        "retention_preview": f"{e}/retention/{rule}/preview/",
        "retention_run": f"{e}/retention/runs/{made['retention_run']}/",
        "share_new": f"{e}/share/{_s()}/",
        "share_list": "/shares/",
        "share_open": f"/s/{SHARE}/",
    }


POST_ONLY = "POST only: an action whose answer is a redirect or the page it came from"
SKIPPED = {
    "healthz": "plain text for load balancers",
    "readyz": "plain text for load balancers",
    "metrics": "Prometheus text behind its token",
    "session_messages": "a fragment of the session page (its transcript), checked there",
    "lineage_panel": "a fragment of the session page, checked there with its panels open",
    "compare_panel": "a fragment of the session page, checked there with its panels open",
    "index_status": "a fragment of the Sessions page, checked there",
    "index_moved": "a redirect to session_list, the Sessions page",
    "chat_turn_stream": "an event stream",
    "live_stream": "an event stream",
    "live_deletions": "a fragment polled by the deletion pages",
    "live_review": "a fragment polled by the queue page",
    "review_next": "a redirect to the queue's next item, checked as review_item",
    "review_authoritative": POST_ONLY,
    "index_refresh": POST_ONLY,
    "access_grant": POST_ONLY,
    "access_revoke": POST_ONLY,
    "access_end_sessions": POST_ONLY,
    "session_flag": POST_ONLY,
    "view_edit": POST_ONLY,
    "session_tags": POST_ONLY,
    "tag_edit": POST_ONLY,
    "change_check": POST_ONLY,
    "chat_turn_cancel": POST_ONLY,
    "deletion_decide": POST_ONLY,
    "deletion_execute": POST_ONLY,
    "deletion_check": POST_ONLY,
    "deletion_withdraw": POST_ONLY,
    "deletion_follow_up": POST_ONLY,
    "deletion_batch_decide": POST_ONLY,
    "deletion_batch_execute": POST_ONLY,
    "deletion_new": POST_ONLY,
    "compare_verdict": POST_ONLY,
    "endpoint_probe": POST_ONLY,
    "bulk_close": POST_ONLY,
    "bulk_delete": POST_ONLY,
    "bulk_archive": POST_ONLY,
    "bulk_tags": POST_ONLY,
    "review_bulk_add": POST_ONLY,
    "review_note_delete": POST_ONLY,
    "mentions_read": POST_ONLY,
    "tag_delete": POST_ONLY,
    "view_save": POST_ONLY,
    "view_default": POST_ONLY,
    "view_delete": POST_ONLY,
    "token_revoke": POST_ONLY,
    "share_approve": POST_ONLY,
    "share_revoke": POST_ONLY,
    "webhook_ping": POST_ONLY,
    "webhook_delete": POST_ONLY,
    "webhook_redeliver": POST_ONLY,
    "retention_keep_tags": POST_ONLY,
    "retention_run_now": POST_ONLY,
    "logout": "POST only, and it would end the walk's login",
    "login": "checked logged out, with the error pages",
    "hermes_oidc_login": "a redirect to the OpenID provider (none configured here)",
    "hermes_oidc_callback": "the OpenID provider's redirect back",
    "sso_break_glass": "a one-time link mailed to an admin",
    "sso_backchannel_logout": "POST only, server to server: the OpenID provider's logout token",
    **{
        name: "SCIM 2.0: JSON for an identity provider's bearer secret, no page (tests/scim/)"
        for name in (
            "scim-root",
            "users",
            "scim-users-search",
            "groups",
            "scim-groups-search",
            "scim-me",
            "scim-bulk",
            "service-provider-config",
            "resource-types",
            "scim-schemas",
        )
    },
    "account_signup": "allauth's signup, answered 404 (accounts are made by admins)",
    "socialaccount_signup": "allauth's signup, answered 404 (accounts are made by admins)",
    "account_inactive": "allauth's page, answered 404",
    "api_not_found": "the API's JSON 404",
    "session_export": "a download; its form is on the session page",
}
# Same page and view as the named one, the session id in the query string.
SKIPPED.update(
    {
        name: f"as {name[:-2]}, the id in the query"
        for name in [
            "session_detail_q",
            "session_messages_q",
            "lineage_page_q",
            "lineage_panel_q",
            "session_rename_q",
            "session_fork_q",
            "session_flag_q",
            "session_chat_q",
            "compare_panel_q",
            "session_export_q",
            "review_add_q",
            "review_notes_q",
            "review_correction_q",
            "session_tags_q",
            "share_new_q",
        ]
    }
)


def url_names() -> set[str]:
    """The names of every pattern outside the JSON API (``/api/``)."""

    def walk(patterns, prefix=""):
        for p in patterns:
            if isinstance(p, URLResolver):
                yield from walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern) and not prefix.startswith("api/"):
                yield p.name

    return set(walk(get_resolver().url_patterns))


def axe_findings(page) -> list[str]:
    """The serious and critical WCAG 2.1 A/AA violations on ``page``, one line each."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text())
    return page.evaluate(
        """async (tags) => {
          const r = await axe.run(document, {runOnly: {type: "tag", values: tags},
                                             resultTypes: ["violations"]});
          return r.violations.filter(v => v.impact === "serious" || v.impact === "critical")
            .map(v => `${v.id} (${v.impact}): ${v.help}: `
                      + v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(", "));
        }""",
        WCAG_21_AA,
    )


def settle(page) -> None:
    """Let htmx finish loading the page's regions."""
    wait_for_js(
        page, "document.readyState === 'complete' && !document.querySelector('.htmx-request')"
    )


@pytest.fixture(scope="module")
def a11y_dashboard(tmp_path_factory, hermes_peer):
    """A dashboard of its own: the seeded rows stay out of the shared one."""
    server = DashboardServer(tmp_path_factory.mktemp("a11y-data"), hermes_peer).start()
    server.manage("index_sync", "--full")
    out = subprocess.run(
        [sys.executable, str(REPO / "manage.py"), "shell", "-c", SEED],
        env=server.env,
        check=True,
        capture_output=True,
        text=True,
        cwd=REPO,
    ).stdout
    server.made = json.loads(out.strip().splitlines()[-1])
    yield server
    server.stop()


def test_every_pattern_is_walked_or_skipped_with_a_reason():
    walked = set(pages(defaultdict(int)))  # any ids: only the names count
    assert walked.isdisjoint(SKIPPED)
    assert url_names() - walked - set(SKIPPED) == set()
    assert walked | set(SKIPPED) <= url_names()


def test_no_serious_axe_violation_on_any_page(chromium, a11y_dashboard):
    base = a11y_dashboard.base_url
    context = watched_context(chromium, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    failures: dict[str, list[str]] = {}
    made = dict(a11y_dashboard.made)

    def check(name: str, path: str, status: int = 200, before=None) -> None:
        response = page.goto(base + path)
        if response.status != status:
            failures[f"{name} {path}"] = [f"status {response.status}"]
            return
        settle(page)
        if before:
            before(page)
            settle(page)
        if found := axe_findings(page):
            failures[f"{name} {path}"] = found

    check("login", "/accounts/login/")
    log_in(page, base, "admin")
    page.goto(f"{base}/e/local/sessions/{_s()}/")
    made["message"] = (
        page.locator("article.msg.role-assistant").first.get_attribute("id").removeprefix("msg-")
    )
    for name, path in pages(made).items():
        check(name, path, before=_open_panels if name == "session_detail" else None)
    # Error pages: a session Hermes does not have, an unknown endpoint, a role refused.
    check("404 session", f"/e/local/sessions/{_s('no-such-session')}/", 404)
    check("404 endpoint", "/e/nowhere/sessions/", 404)
    context.close()

    support = watched_context(chromium, viewport={"width": 1280, "height": 800})
    page = support.new_page()
    log_in(page, base, "support")
    check("403 audit", "/audit/", 403)
    # The check itself: a button without a name is a critical violation it reports.
    page.evaluate("document.querySelector('main').append(document.createElement('button'))")
    assert any(line.startswith("button-name (critical)") for line in axe_findings(page))
    support.close()
    assert failures == {}, json.dumps(failures, indent=1)
    assert_no_csp_violations(context)
    assert_no_csp_violations(support)


def _open_panels(page) -> None:
    """Open the session page's side panels, which load their content when opened."""
    page.evaluate("document.querySelectorAll('details.side-panel').forEach(d => d.open = true)")


TOP_BAR_LINKS = "header.topbar a, header.topbar button"
# On the bar's dark background: within the header, or within the open menu below it.
INSIDE = """e => {
  const r = e.getBoundingClientRect();
  const bar = [e.closest(".menu-body"), e.closest("header")]
    .map(x => x && x.getBoundingClientRect()).find(b => b && b.height > 0);
  return r.width > 0 && r.left >= 0 && r.right <= innerWidth
    && r.top >= bar.top && r.bottom <= bar.bottom;
}"""


def test_the_top_bar_fits_at_1280_and_folds_into_a_menu_at_390(chromium, a11y_dashboard):
    """Every link of the bar is on its dark background: all shown at 1280 px, behind the
    "Menu" button at 390 px, which opens from the keyboard."""
    context = watched_context(chromium, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    log_in(page, a11y_dashboard.base_url, "admin")
    page.goto(a11y_dashboard.base_url + "/deletions/")
    links = page.locator(TOP_BAR_LINKS)
    names = [link.inner_text().split("\n")[0].strip() for link in links.all()]
    assert {"Webhooks", "API tokens", "Log out"} <= set(names)
    assert not page.locator(".menu > summary").is_visible()
    assert all(link.evaluate(INSIDE) for link in links.all()), names
    # Two rows: the endpoints and the account beside the brand, the sections below.
    assert page.locator("header.topbar").bounding_box()["height"] < 80
    brand, log_out = page.locator(".brand"), page.get_by_role("button", name="Log out")
    assert abs(brand.bounding_box()["y"] - log_out.bounding_box()["y"]) < 10

    page.set_viewport_size({"width": 390, "height": 844})
    assert not page.get_by_role("link", name="Webhooks").is_visible()
    page.locator(".menu > summary").focus()
    page.keyboard.press("Enter")
    hidden = [
        name
        for name, link in zip(names, links.all(), strict=True)
        if not link.is_visible() or not link.evaluate(INSIDE)
    ]
    assert hidden == []
    screenshot(page, "a11y-menu-390")
    page.keyboard.press("Tab")  # from the button into the open menu
    assert page.evaluate("document.activeElement.closest('.menu-body') !== null")
    context.close()
    assert_no_csp_violations(context)
