"""The Hermes client against captured provider payloads (httpx.MockTransport)."""

import asyncio
import json
import logging

import httpx
import pytest

from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform import outages
from hermes_ui.platform.endpoints import Endpoint
from tests.conftest import TEST_KEY
from tests.support.fakes import raising
from tests.support.samples import MUTATIONS, Recorder, raw_stream, response

ENDPOINT = Endpoint("local", "http://hermes.test", TEST_KEY)


def make(routes=None, default=None, **kwargs):
    rec = Recorder(routes, default)
    kwargs.setdefault("retry_backoff", 0.0)
    return HermesClient(ENDPOINT, transport=rec.transport, **kwargs), rec


# -- auth, encoding, ids -------------------------------------------------------


def test_every_operation_sends_the_bearer_key():
    client, rec = make(default="030_get")
    client.get_session("peer-demo")
    assert rec.requests[0].headers["Authorization"] == f"Bearer {TEST_KEY}"


@pytest.mark.parametrize(
    ("session_id", "raw_path"),
    [
        ("a/b", "/api/sessions/a%2Fb"),
        ("50% off?#x y", "/api/sessions/50%25%20off%3F%23x%20y"),
        ("ünï", "/api/sessions/%C3%BCn%C3%AF"),
        ("..", "/api/sessions/%2E%2E"),
        (".", "/api/sessions/%2E"),
    ],
)
def test_session_id_is_one_percent_encoded_segment(session_id, raw_path):
    client, rec = make(default="030_get")
    client.get_session(session_id)
    assert rec.requests[0].url.raw_path.decode() == raw_path


# CR, LF, NUL; braces and very long ids, which Hermes' router answers with a plain
# 404 or 400 instead of its session API (measured on 0.19.0).
@pytest.mark.parametrize("bad", ["a\rb", "a\nb", "a\x00b", "{x}", "a}", "x" * 6001, "ü" * 1001])
@pytest.mark.parametrize(
    "call",
    [
        lambda c, s: c.get_session(s),
        lambda c, s: c.get_messages(s),
        lambda c, s: c.patch_session(s, idempotency_key="k1", title="x"),
        lambda c, s: c.delete_session(s, idempotency_key="k1"),
        lambda c, s: c.fork_session(s, idempotency_key="k1"),
        lambda c, s: c.chat(s, message="hi"),
    ],
)
def test_cr_lf_nul_in_path_ids_are_refused_before_any_request(bad, call):
    client, rec = make(default="030_get")
    with pytest.raises(e.InvalidInput) as info:
        call(client, bad)
    assert info.value.code == "invalid_session_id"
    assert rec.requests == []


BAD_NEW_IDS = [
    "   ",
    "x" * 257,
    "tab\there",
    "bell\x07",
    "a/b",
    "..",
    "x..y",
    "a\\b",
    "C:evil",
    "d:",
    "ü:drive",
    "{x}",
]


@pytest.mark.parametrize("bad", BAD_NEW_IDS)
def test_create_rules_apply_to_create_ids(bad):
    client, rec = make(default="010_create_full")
    with pytest.raises(e.InvalidInput) as info:
        client.create_session(idempotency_key="k1", session_id=bad)
    assert info.value.code == "invalid_session_id"
    assert rec.requests == []


@pytest.mark.parametrize("bad", BAD_NEW_IDS)
def test_create_rules_apply_to_fork_ids_too(bad):
    # The provider's fork accepts ../x and a/b; the dashboard must not.
    client, rec = make(default="105_fork_custom")
    with pytest.raises(e.InvalidInput):
        client.fork_session("fork-src", idempotency_key="k1", child_id=bad)
    assert rec.requests == []


def test_new_ids_are_trimmed_and_256_chars_pass():
    client, rec = make(default="010_create_full")
    client.create_session(idempotency_key="k1", session_id="  " + "y" * 256 + " ")
    assert json.loads(rec.requests[0].content)["id"] == "y" * 256


def test_empty_new_id_lets_the_provider_generate_one():
    client, rec = make(default="102_fork_default")
    client.fork_session("fork-src", idempotency_key="k1", child_id="")
    assert json.loads(rec.requests[0].content) == {}


# -- idempotency and timeouts -------------------------------------------------


def test_mutations_send_the_idempotency_key_and_reads_do_not():
    client, rec = make(
        {
            ("POST", "/api/sessions"): "010_create_full",
            ("PATCH", "/api/sessions/peer-demo"): "040_patch_title",
            ("POST", "/api/sessions/fork-src/fork"): "105_fork_custom",
            ("DELETE", "/api/sessions/del-parent"): "133_delete_parent",
            ("GET", "/api/sessions/peer-demo"): "030_get",
            ("GET", "/api/sessions"): "120_list",
        }
    )
    client.create_session(idempotency_key="key-create", session_id="peer-demo")
    client.patch_session("peer-demo", idempotency_key="key-patch", title="t")
    client.fork_session("fork-src", idempotency_key="key-fork", child_id="c")
    client.delete_session("del-parent", idempotency_key="key-delete")
    client.get_session("peer-demo")
    client.list_sessions()
    keys = [r.headers.get("Idempotency-Key") for r in rec.requests]
    assert keys == ["key-create", "key-patch", "key-fork", "key-delete", None, None]


def test_a_mutation_without_a_key_is_refused():
    client, rec = make(default="040_patch_title")
    with pytest.raises(e.InvalidInput):
        client.patch_session("peer-demo", idempotency_key="", title="t")
    assert rec.requests == []


def test_patch_sends_only_the_fields_given():
    client, rec = make(default="040_patch_title")
    client.patch_session("peer-demo", idempotency_key="k", end_reason="resolved")
    assert json.loads(rec.requests[0].content) == {"end_reason": "resolved"}


def test_per_operation_timeouts_follow_the_contract():
    client, rec = make(
        {
            ("GET", "/api/sessions/peer-demo"): "030_get",
            ("POST", "/api/sessions/peer-demo/chat"): "060_chat",
        },
        json_timeout=30,
        chat_timeout=300,
    )
    client.get_session("peer-demo")
    client.chat("peer-demo", message="hello peer")
    # Each call's timeout is what is left of its deadline when it is sent.
    assert rec.requests[0].extensions["timeout"]["read"] == pytest.approx(30, abs=1)
    assert rec.requests[1].extensions["timeout"]["read"] == pytest.approx(300, abs=1)


# -- provider error codes -----------------------------------------------------


@pytest.mark.parametrize(
    ("route", "sample", "call", "cls", "code", "status"),
    [
        (
            ("POST", "/api/sessions"),
            "012_create_duplicate_id",
            lambda c: c.create_session(idempotency_key="k", session_id="peer-demo"),
            e.Conflict,
            "session_exists",
            409,
        ),
        (
            ("POST", "/api/sessions"),
            "013_create_duplicate_title",
            lambda c: c.create_session(idempotency_key="k", title="Demo session"),
            e.BadRequest,
            "invalid_title",
            400,
        ),
        (
            ("POST", "/api/sessions"),
            "021_create_bad_id_a_b_",
            lambda c: c.create_session(idempotency_key="k", session_id="ok-locally"),
            e.BadRequest,
            "invalid_session_id",
            400,
        ),
        (
            ("PATCH", "/api/sessions/peer-demo"),
            "041_patch_unknown_field",
            lambda c: c.patch_session("peer-demo", idempotency_key="k", title="x"),
            e.BadRequest,
            "unsupported_session_field",
            400,
        ),
        (
            ("PATCH", "/api/sessions/peer-demo"),
            "044_patch_title_dup",
            lambda c: c.patch_session("peer-demo", idempotency_key="k", title="x"),
            e.BadRequest,
            "invalid_title",
            400,
        ),
        (
            ("POST", "/api/sessions/peer-demo/chat"),
            "064_chat_missing_message",
            lambda c: c.chat("peer-demo", message="x"),
            e.BadRequest,
            "missing_message",
            400,
        ),
        (
            ("GET", "/api/sessions/peer-demo"),
            "002_auth_wrong",
            lambda c: c.get_session("peer-demo"),
            e.Unauthorized,
            "invalid_api_key",
            401,
        ),
        (
            ("GET", "/api/sessions/peer-demo"),
            "031_get_404",
            lambda c: c.get_session("peer-demo"),
            e.NotFound,
            "session_not_found",
            404,
        ),
        (
            ("POST", "/api/sessions/fork-src/fork"),
            "106_fork_existing_id",
            lambda c: c.fork_session("fork-src", idempotency_key="k", child_id="x"),
            e.Conflict,
            "session_exists",
            409,
        ),
        (
            ("POST", "/api/sessions/fork-src/fork"),
            "108_fork_dup_title",
            lambda c: c.fork_session("fork-src", idempotency_key="k", title="x"),
            e.BadRequest,
            "invalid_title",
            400,
        ),
    ],
)
def test_provider_rejections_are_typed_by_code_and_definitive(
    route, sample, call, cls, code, status
):
    client, rec = make({route: sample})
    with pytest.raises(cls) as info:
        call(client)
    assert info.value.code == code
    assert info.value.status == status
    assert info.value.outcome is e.Outcome.REJECTED
    assert len(rec.requests) == 1


def test_fork_title_failure_keeps_the_provider_message_for_the_user():
    client, _ = make({("POST", "/api/sessions/fork-src/fork"): "108_fork_dup_title"})
    with pytest.raises(e.BadRequest) as info:
        client.fork_session("fork-src", idempotency_key="k", title="x")
    assert "already in use" in info.value.provider_message
    assert "already in use" not in repr(info.value)


def test_403_on_the_session_key_header_gets_its_own_code():
    forbidden = httpx.Response(
        403,
        json={
            "error": {
                "message": "X-Hermes-Session-Key requires API key authentication.",
                "type": "invalid_request_error",
            }
        },
    )
    client, _ = make({("POST", "/api/sessions/peer-demo/chat"): forbidden})
    with pytest.raises(e.Forbidden) as info:
        client.chat("peer-demo", message="x", session_key="support:case")
    assert info.value.code == "session_key_forbidden"
    assert "memory scope" in info.value.advice


def test_session_key_travels_as_its_header():
    client, rec = make({("POST", "/api/sessions/peer-demo/chat"): "061_chat_session_key"})
    client.chat("peer-demo", message="x", session_key="support:case-review")
    assert rec.requests[0].headers["X-Hermes-Session-Key"] == "support:case-review"


def test_provider_413_is_typed():
    too_large = httpx.Response(
        413, json={"error": {"message": "Request body too large.", "code": "body_too_large"}}
    )
    client, _ = make({("POST", "/api/sessions"): too_large})
    with pytest.raises(e.PayloadTooLarge) as info:
        client.create_session(idempotency_key="k", title="t")
    assert info.value.code == "body_too_large"


def db_unavailable(request):
    return httpx.Response(
        503,
        json={
            "error": {"message": "Session database unavailable", "code": "session_db_unavailable"}
        },
    )


def test_503_on_a_read_is_retried_then_reported():
    client, rec = make({("GET", "/api/sessions"): db_unavailable}, read_retries=2)
    with pytest.raises(e.Unavailable) as info:
        client.list_sessions()
    assert info.value.code == "session_db_unavailable"
    assert len(rec.requests) == 3


def test_a_read_succeeds_when_a_retry_does():
    answers = [db_unavailable(None), response("120_list")]
    client, rec = make({("GET", "/api/sessions"): lambda r: answers.pop(0)}, read_retries=2)
    assert client.list_sessions()["object"] == "list"
    assert len(rec.requests) == 2


@pytest.mark.parametrize(
    "answer",
    [
        db_unavailable,
        lambda r: httpx.Response(429, json={}),
        lambda r: response("016_create_title_101"),
    ],
)
def test_429_and_5xx_on_a_mutation_are_uncertain_and_never_retried(answer):
    client, rec = make({("POST", "/api/sessions"): answer}, read_retries=3)
    with pytest.raises(e.HermesError) as info:
        client.create_session(idempotency_key="k", title="t")
    assert info.value.outcome is e.Outcome.UNCERTAIN
    assert len(rec.requests) == 1


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.get_session("x"),
        lambda c: c.get_messages("x"),
        lambda c: c.delete_session("x", idempotency_key="k1"),
        lambda c: c.fork_session("x", idempotency_key="k1"),
    ],
)
def test_a_plain_404_on_one_sessions_route_is_that_requests_failure(call):
    """Not "no session API" (a verdict on the whole endpoint), not "session gone"."""
    client, _ = make(default="141_unknown_route")
    with pytest.raises(e.Unrouted) as info:
        call(client)
    assert not isinstance(info.value, e.NotFound | e.NoSessionApi)
    assert (info.value.code, info.value.status) == ("session_unrouted", 404)


def test_a_plain_404_on_the_list_is_no_session_api():
    client, _ = make(default="141_unknown_route")
    with pytest.raises(e.NoSessionApi):
        client.list_sessions()


def test_chat_500_text_plain_is_uncertain():
    client, _ = make({("POST", "/api/sessions/err-demo/chat"): "153_chat_error"})
    with pytest.raises(e.ServerError) as info:
        client.chat("err-demo", message="trigger")
    assert info.value.uncertain


@pytest.mark.parametrize("exc", [httpx.ConnectError, httpx.ReadError])
def test_transport_failure_on_a_read_retries_and_is_not_uncertain(exc):
    client, rec = make(default=raising(exc), read_retries=1)
    with pytest.raises(e.TransportFailure) as info:
        client.get_session("x")
    assert info.value.outcome is e.Outcome.REJECTED
    assert len(rec.requests) == 2


@pytest.mark.parametrize(
    ("exc", "cls"), [(httpx.ReadError, e.TransportFailure), (httpx.ReadTimeout, e.Timeout)]
)
@pytest.mark.parametrize(
    "call",
    MUTATIONS,
)
def test_transport_failure_or_timeout_on_a_mutation_is_uncertain_and_sent_once(exc, cls, call):
    client, rec = make(default=raising(exc), read_retries=3)
    with pytest.raises(cls) as info:
        call(client)
    assert info.value.outcome is e.Outcome.UNCERTAIN
    assert "may or may not" in info.value.message
    assert len(rec.requests) == 1


def test_malformed_json_on_a_read_and_on_a_mutation():
    garbage = httpx.Response(200, text="<html>proxy</html>")
    client, _ = make(default=garbage)
    with pytest.raises(e.MalformedResponse) as read_info:
        client.get_session("x")
    assert read_info.value.outcome is e.Outcome.REJECTED
    with pytest.raises(e.MalformedResponse) as write_info:
        client.patch_session("x", idempotency_key="k", title="t")
    assert write_info.value.outcome is e.Outcome.UNCERTAIN


def test_wrong_json_shape_is_malformed():
    client, _ = make(default=httpx.Response(200, json={"object": "list", "data": "nope"}))
    with pytest.raises(e.MalformedResponse):
        client.list_sessions()


def test_bodies_over_ten_million_bytes_are_refused_locally():
    client, rec = make(default="060_chat")
    parts = [{"type": "text", "text": "x" * 60_000} for _ in range(170)]
    with pytest.raises(e.InvalidInput) as info:
        client.chat("peer-demo", message=parts)
    assert info.value.code == "body_too_large"
    assert "10,000,000" in info.value.message
    assert rec.requests == []


@pytest.mark.parametrize("message", ["", "   ", []])
def test_empty_chat_message_is_refused_locally(message):
    client, rec = make(default="060_chat")
    with pytest.raises(e.InvalidInput) as info:
        client.chat("peer-demo", message=message)
    assert info.value.code == "missing_message"
    assert rec.requests == []


# -- list ---------------------------------------------------------------------


@pytest.mark.parametrize("limit", [0, 201, -1])
def test_list_limit_outside_1_to_200_is_refused(limit):
    client, rec = make(default="120_list")
    with pytest.raises(e.InvalidInput):
        client.list_sessions(limit=limit)
    assert rec.requests == []


def test_list_forwards_typed_parameters():
    client, rec = make(default="121_list_include_children")
    client.list_sessions(limit=20, offset=40, source="cli", include_children=True)
    params = dict(rec.requests[0].url.params)
    assert params == {"limit": "20", "offset": "40", "source": "cli", "include_children": "true"}


def call_lines(caplog):
    return [r for r in caplog.records if r.name == "hermes_ui.hermes"]


@pytest.mark.parametrize("log_calls, level", [(False, logging.DEBUG), (True, logging.INFO)])
def test_each_call_is_logged_at_debug_unless_log_calls_is_on(settings, caplog, log_calls, level):
    settings.HERMES_UI_LOG_CALLS = log_calls
    client, _ = make(default="120_list")
    with caplog.at_level(logging.DEBUG, logger="hermes_ui.hermes"):
        client.list_sessions()
    [line] = call_lines(caplog)
    assert line.levelno == level
    assert line.getMessage().startswith("hermes op=sessions_list endpoint=local status=200 ms=")


def test_an_endpoint_outage_is_one_warning_and_its_end_one_info(settings, caplog, monkeypatch):
    settings.HERMES_UI_LOG_CALLS = False
    monkeypatch.setattr(outages, "_endpoints", {})
    answers = [db_unavailable(None)] * 3 + [response("120_list")]
    client, _ = make({("GET", "/api/sessions"): lambda request: answers.pop(0)}, read_retries=0)
    with caplog.at_level(logging.INFO, logger="hermes_ui.hermes"):
        for _ in range(3):
            with pytest.raises(e.Unavailable):
                client.list_sessions()
        client.list_sessions()
    lines = call_lines(caplog)
    assert [line.levelno for line in lines] == [logging.WARNING, logging.INFO]
    assert "endpoint=local unreachable (session_db_unavailable in op=sessions_list)" in (
        lines[0].getMessage()
    )
    assert "endpoint=local is back after" in lines[1].getMessage()


def test_error_repr_never_contains_provider_text():
    client, _ = make(default="031_get_404")
    with pytest.raises(e.NotFound) as info:
        client.get_session("does-not-exist")
    assert "does-not-exist" in info.value.message
    assert "does-not-exist" not in repr(info.value)


# -- streaming ----------------------------------------------------------------


def stream_client(handler):
    return HermesClient(ENDPOINT, async_transport=httpx.MockTransport(handler))


async def collect(client, session_id="peer-demo", **kwargs):
    return [ev async for ev in client.chat_stream(session_id, message="hi", **kwargs)]


def test_stream_yields_the_provider_events_in_order():
    body = raw_stream("080_stream")
    seen = []

    def handler(request):
        seen.append(request)
        return httpx.Response(200, headers={"Content-Type": "text/event-stream"}, content=body)

    events = asyncio.run(collect(stream_client(handler)))
    names = [ev.name for ev in events]
    assert names[:2] == ["run.started", "message.started"]
    assert names[-3:] == ["assistant.completed", "run.completed", "done"]
    answer = "".join(ev.data["delta"] for ev in events if ev.name == "assistant.delta")
    assert answer == "Echo: stream these words please"
    assert seen[0].url.raw_path.decode() == "/api/sessions/peer-demo/chat/stream"


def test_stream_tolerates_keepalive_comments():
    body = b": keepalive\n\n" + raw_stream("080_stream")

    def handler(request):
        return httpx.Response(200, headers={"Content-Type": "text/event-stream"}, content=body)

    events = asyncio.run(collect(stream_client(handler)))
    assert events[0].is_keepalive
    assert events[1].name == "run.started"


def test_stream_error_before_it_starts_is_typed():
    def handler(request):
        return response("081_stream_404")

    with pytest.raises(e.NotFound):
        asyncio.run(collect(stream_client(handler), "nope"))


def test_stream_transport_failure_is_uncertain():
    def handler(request):
        raise httpx.ReadError("dropped", request=request)

    with pytest.raises(e.TransportFailure) as info:
        asyncio.run(collect(stream_client(handler)))
    assert info.value.uncertain
