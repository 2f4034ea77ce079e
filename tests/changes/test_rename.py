"""Rename and close: only ``title`` and ``end_reason`` leave the dashboard, once per form."""

import json

import httpx
import pytest

from hermes_ui.audit.models import AuditEvent, IdempotencyRecord
from hermes_ui.hermes import errors as e
from hermes_ui.web.links import session_url
from tests.changes.conftest import form_key, make_session, submit_buttons, unique
from tests.support.fakes import raising
from tests.support.samples import sample

pytestmark = pytest.mark.django_db


def rename_url(session_id, **query):
    return session_url("local", session_id, "session_rename", **query)


def submit(client, session_id, **data):
    page = client.get(rename_url(session_id))
    assert page.status_code == 200
    return client.post(rename_url(session_id), {"key": form_key(page.content.decode()), **data})


# -- against the real peer ------------------------------------------------------------


@pytest.mark.peer
def test_rename_cleans_like_hermes_and_sends_only_the_title(login, changes_client, faults):
    row = make_session(changes_client, title=unique("before"))
    support = login("support")
    wanted = unique("after")
    answer = submit(
        support,
        row["id"],
        op="rename",
        title=f"  {wanted}\u200b\t\n ok ",
        model="ignored",
        end_reason="ignored",
    )
    assert answer.status_code == 302
    assert answer["Location"] == session_url("local", row["id"])
    assert changes_client.get_session(row["id"]).title == f"{wanted} ok"
    (patch,) = faults.sent("PATCH")
    assert json.loads(patch.content) == {"title": f"{wanted} ok"}
    event = AuditEvent.objects.get(capability="session_patch")
    assert patch.headers["Idempotency-Key"] == event.idempotency_key
    assert event.outcome == "success" and event.session_id == row["id"]
    assert wanted not in json.dumps(event.evidence)
    page = support.get(answer["Location"]).content.decode()
    assert "The title was saved." in page


@pytest.mark.peer
def test_an_empty_title_clears_it(login, changes_client):
    row = make_session(changes_client, title=unique("clear-me"))
    assert submit(login("support"), row["id"], op="rename", title=" \u200b ").status_code == 302
    assert changes_client.get_session(row["id"]).title is None


@pytest.mark.peer
def test_a_duplicate_title_shows_the_providers_verdict(login, changes_client):
    taken = make_session(changes_client, title=unique("taken"))
    row = make_session(changes_client, title=unique("mine"))
    answer = submit(login("support"), row["id"], op="rename", title=taken["title"])
    assert answer.status_code == 400
    page = answer.content.decode()
    assert f"already in use by session {taken['id']}" in page  # Hermes' own words
    assert session_url("local", taken["id"]) in page  # a link to the holder
    assert changes_client.get_session(row["id"]).title == row["title"]
    event = AuditEvent.objects.get()
    assert (event.outcome, event.http_status, event.error_code) == (
        "rejected",
        400,
        "invalid_title",
    )
    assert event.evidence["conflict_id"] == taken["id"]
    assert taken["title"] not in json.dumps(event.evidence)
    assert taken["title"] not in IdempotencyRecord.objects.get().message


@pytest.mark.peer
def test_the_first_close_reason_wins_and_closing_is_said_plainly(login, changes_client):
    row = make_session(changes_client, title=unique("close"))
    support = login("support")
    form = support.get(rename_url(row["id"])).content.decode()
    for fact in (
        "The first close reason wins.",
        "Closing does not stop chat at Hermes.",
        "Nothing reopens a session.",
    ):
        assert fact in form
    for reason in ("client_closed", "resolved", "duplicate", "abandoned"):
        assert f'value="{reason}"' in form
    assert submit(support, row["id"], op="close", reason="resolved").status_code == 302
    assert changes_client.get_session(row["id"]).end_reason == "resolved"
    # A second reason is a silent no-op at the provider; the dashboard says so.
    key = form_key(form)  # the page was rendered before the first close
    again = support.post(
        rename_url(row["id"]),
        {"key": key, "op": "close", "reason": "other", "other": "handoff_to_human"},
        follow=True,
    )
    assert "already closed; its first close reason stays" in again.content.decode()
    assert changes_client.get_session(row["id"]).end_reason == "resolved"
    # The page of a closed session offers no close form any more.
    assert 'id="close-link"' not in support.get(session_url("local", row["id"])).content.decode()


@pytest.mark.peer
def test_a_free_text_close_reason_and_its_checks(login, changes_client):
    row = make_session(changes_client)
    support = login("support")
    empty = submit(support, row["id"], op="close", reason="other", other="  ")
    assert empty.status_code == 400 and "Type the close reason" in empty.content.decode()
    assert (
        submit(support, row["id"], op="close", reason="other", other="escalated").status_code == 302
    )
    assert changes_client.get_session(row["id"]).end_reason == "escalated"


@pytest.mark.peer
def test_a_repeat_of_one_form_calls_hermes_once(login, changes_client, faults):
    row = make_session(changes_client)
    support = login("support")
    key = form_key(support.get(rename_url(row["id"])).content.decode())
    data = {"key": key, "op": "rename", "title": unique("once")}
    first = support.post(rename_url(row["id"]), data)
    second = support.post(rename_url(row["id"]), data, follow=True)
    assert first.status_code == 302 and second.status_code == 200
    assert len(faults.sent("PATCH")) == 1
    assert "This form was already submitted." in second.content.decode()
    # The same form with another title is another intent: a fresh effective key.
    third = support.post(rename_url(row["id"]), {**data, "title": unique("twice")})
    assert third.status_code == 302 and len(faults.sent("PATCH")) == 2
    keys = {r.headers["Idempotency-Key"] for r in faults.sent("PATCH")}
    assert len(keys) == 2


@pytest.mark.peer
def test_the_provider_refuses_any_other_field(changes_client):
    """What the dashboard never sends, Hermes refuses: unsupported_session_field."""
    row = make_session(changes_client)
    with pytest.raises(e.BadRequest) as info:
        changes_client._send(
            "session_patch",
            "PATCH",
            f"/api/sessions/{row['id']}",
            body={"title": "x", "model": "y"},
            mutation=True,
        )
    assert info.value.code == "unsupported_session_field"


@pytest.mark.peer
def test_inline_rename_with_htmx_swaps_the_title(login, changes_client):
    row = make_session(changes_client, title=unique("inline"))
    support = login("support")
    fragment = support.get(rename_url(row["id"], part="rename"), HTTP_HX_REQUEST="true")
    html = fragment.content.decode()
    assert html.lstrip().startswith("<form") and "<html" not in html
    assert f'value="{row["title"]}"' in html
    wanted = unique("swapped")
    saved = support.post(
        rename_url(row["id"]),
        {"key": form_key(html), "op": "rename", "title": wanted},
        HTTP_HX_REQUEST="true",
    )
    assert saved.status_code == 200
    assert f'<h1 id="session-title" hx-swap-oob="true">{wanted}</h1>' in saved.content.decode()
    # A refused title comes back as the form, with the verdict, for htmx too.
    other = make_session(changes_client, title=unique("other"))
    html = support.get(
        rename_url(row["id"], part="rename"), HTTP_HX_REQUEST="true"
    ).content.decode()
    refused = support.post(
        rename_url(row["id"]),
        {"key": form_key(html), "op": "rename", "title": other["title"]},
        HTTP_HX_REQUEST="true",
    )
    assert refused.status_code == 400
    assert "already in use" in refused.content.decode()
    assert form_key(refused.content.decode()) != form_key(html)  # a fresh key for a new try


@pytest.mark.peer
def test_roles_and_login(client, login, changes_client):
    row = make_session(changes_client)
    assert client.get(rename_url(row["id"])).status_code == 302  # to the login page
    support_page = login("support").get(session_url("local", row["id"])).content.decode()
    assert 'id="rename-link"' in support_page and 'id="fork-link"' not in support_page
    reviewer_page = login("reviewer").get(session_url("local", row["id"])).content.decode()
    assert 'id="fork-link"' in reviewer_page


# -- failures through the client, with captured payloads ---------------------------------


@pytest.mark.parametrize(
    ("answer", "status", "code"),
    [
        ("041_patch_unknown_field", 400, "unsupported_session_field"),
        ("044_patch_title_dup", 400, "invalid_title"),
        ("045_patch_404", 404, "session_not_found"),
    ],
)
def test_each_provider_refusal_is_shown_not_crashed(login, recorder, answer, status, code):
    recorder.routes[("GET", "/api/sessions/peer-demo")] = "030_get"
    recorder.routes[("PATCH", "/api/sessions/peer-demo")] = answer
    reply = submit(login("support"), "peer-demo", op="rename", title="Anything")
    assert reply.status_code == status
    event = AuditEvent.objects.get()
    assert (event.outcome, event.error_code) == ("rejected", code)
    body = reply.content.decode()
    assert sample(answer)["body"]["error"]["message"].replace("'", "&#x27;") in body


@pytest.mark.parametrize(
    ("fault", "status", "code"),
    [
        (httpx.Response(500, text="Server got itself in trouble"), 502, "server_error"),
        (httpx.Response(429, json={"error": {"code": "rate_limited"}}), 502, "rate_limited"),
        (
            httpx.Response(503, json={"error": {"code": "session_db_unavailable"}}),
            502,
            "session_db_unavailable",
        ),
        (raising(httpx.ReadTimeout), 504, "timeout"),
        (raising(httpx.RemoteProtocolError), 502, "transport"),
    ],
)
def test_uncertain_outcomes_offer_a_check_never_a_retry(login, recorder, fault, status, code):
    recorder.routes[("GET", "/api/sessions/peer-demo")] = "030_get"
    recorder.routes[("PATCH", "/api/sessions/peer-demo")] = fault
    support = login("support")
    reply = submit(support, "peer-demo", op="rename", title="Maybe")
    assert reply.status_code == status
    page = reply.content.decode()
    event = AuditEvent.objects.get()
    assert (event.outcome, event.error_code) == ("uncertain", code)
    assert "Outcome uncertain" in page and "Check what happened" in page
    # No retry button: the only one is the check, a POST that reads and never repeats.
    assert submit_buttons(page.split('id="reconcile"', 1)[1]) == ["Check what happened"]
    # htmx: the inline form gives way to the same warning, without a form.
    html = support.get(rename_url("peer-demo", part="rename"), HTTP_HX_REQUEST="true").content
    inline = support.post(
        rename_url("peer-demo"),
        {"key": form_key(html.decode()), "op": "rename", "title": "Maybe"},
        HTTP_HX_REQUEST="true",
    )
    assert inline.status_code == status
    assert "Check what happened" in inline.content.decode()
    assert "<form" not in inline.content.decode()
    patches = [r for r in recorder.requests if r.method == "PATCH"]
    assert len(patches) == 2  # one per form, never retried


def test_check_what_happened_reads_the_state(login, recorder):
    recorder.routes[("GET", "/api/sessions/peer-demo")] = "030_get"
    recorder.routes[("PATCH", "/api/sessions/peer-demo")] = raising(httpx.ReadTimeout)
    support = login("support")
    title = sample("030_get")["body"]["session"]["title"]
    submit(support, "peer-demo", op="rename", title=title)
    event = AuditEvent.objects.get()
    check = support.get(f"/e/local/changes/{event.pk}/check/")
    assert check.status_code == 200
    page = check.content.decode()
    assert "The session has the title you asked for." in page
    assert "The change is in place." in page
    panel = support.get(f"/e/local/changes/{event.pk}/check/", HTTP_HX_REQUEST="true")
    assert panel.content.decode().lstrip().startswith('<section id="reconcile"')
    assert not [r for r in recorder.requests[-2:] if r.method != "GET"]


@pytest.mark.peer
def test_closing_inline_with_htmx_reloads_the_page(login, changes_client):
    row = make_session(changes_client)
    support = login("support")
    html = support.get(rename_url(row["id"], part="close"), HTTP_HX_REQUEST="true").content.decode()
    assert html.lstrip().startswith('<form id="close-form"')
    answer = support.post(
        rename_url(row["id"]),
        {"key": form_key(html), "op": "close", "reason": "abandoned"},
        HTTP_HX_REQUEST="true",
    )
    assert answer["HX-Redirect"] == session_url("local", row["id"])
    assert changes_client.get_session(row["id"]).end_reason == "abandoned"
    # An unknown operation is a plain 400, never a crash.
    bad = support.post(
        rename_url(row["id"]), {"key": form_key(html), "op": "reopen"}, HTTP_HX_REQUEST="true"
    )
    assert bad.status_code == 400
