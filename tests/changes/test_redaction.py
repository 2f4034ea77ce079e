"""Canaries in titles, messages, system prompts and API keys never reach what the app writes.

A peer with a canary API key, a transcript with canary messages, and the
real app under uvicorn (logging at DEBUG into a file) go through every
change flow, its failures (uncertain ones included) and page views of the
canary transcript. Then everything the app wrote is searched: its log file,
every row of every table of its SQLite database, every other file in its
data folder, and every error page it answered.
"""

import io
import logging
import secrets
import sqlite3
import sys

import httpx
import pytest

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.logfilter import RedactingFilter
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.web.links import session_url
from tests.changes.conftest import csrf_of, form_key, http_login
from tests.support.browser import DashboardServer
from tests.support.peers import CANARY_KEY, unreachable_url


def canary(kind: str) -> str:
    return f"CANARY{kind}{secrets.token_hex(6)}"


CANARIES = {
    "key": CANARY_KEY,
    "dead_key": "canarydeadkey" + secrets.token_hex(12),
    "title": canary("TITLE"),
    "renamed": canary("RENAMED"),
    "fork_title": canary("FORKTITLE"),
    "created_title": canary("CREATEDTITLE"),
    "prompt": canary("PROMPT"),
    "created_prompt": canary("CREATEDPROMPT"),
    "dead_prompt": canary("DEADPROMPT"),
    "message": canary("MESSAGE"),
}
# What no response may ever contain, error page or not.
NEVER_SHOWN = ("key", "dead_key", "prompt", "created_prompt", "dead_prompt")
SOURCE = "canary-source"


class Run:
    """Every response of the flows, kept with what was asked."""

    def __init__(self, http: httpx.Client):
        self.http = http
        self.answers: list[tuple[str, httpx.Response]] = []

    def get(self, url, **kw):
        answer = self.http.get(url, **kw)
        self.answers.append((f"GET {url}", answer))
        return answer

    def post(self, url, data, **kw):
        answer = self.http.post(url, data=data, **kw)
        self.answers.append((f"POST {url}", answer))
        return answer

    def submit(self, form_url, post_url=None, **data):
        page = self.get(form_url)
        fields = {"csrfmiddlewaretoken": csrf_of(page.text), "key": form_key(page.text), **data}
        return self.post(post_url or form_url, fields)

    def blind(self, url, **data):
        """A POST of a form whose page could not be shown (the endpoint is down)."""
        token = self.http.cookies.get("csrftoken")
        return self.post(url, {"csrfmiddlewaretoken": token, "key": mint_key(), **data})


@pytest.fixture(scope="module")
def canary_run(tmp_path_factory, canary_peer):
    peer = canary_peer
    client = HermesClient(Endpoint("local", peer.base_url, peer.key))
    client.create_session(
        idempotency_key=mint_key(),
        session_id=SOURCE,
        title=CANARIES["title"],
        system_prompt=CANARIES["prompt"],
    )
    client.chat(SOURCE, message=f"Please remember {CANARIES['message']} for me")
    data_dir = tmp_path_factory.mktemp("canary-ui")
    server = DashboardServer(
        data_dir,
        peer,
        extra_env={
            "HERMES_UI_LOG_LEVEL": "DEBUG",
            "HERMES_READ_RETRIES": "0",
            "HERMES_EXTRA_ENDPOINTS": f"dead={unreachable_url()}",
            "HERMES_API_KEY_DEAD": CANARIES["dead_key"],
        },
    ).start()
    try:
        with httpx.Client(base_url=server.base_url, timeout=60) as http:
            http_login(http, "admin")
            run = Run(http)
            _flows(run)
            answers = run.answers
        with httpx.Client(base_url=server.base_url, timeout=60) as http:
            http_login(http, "support")
            run = Run(http)
            run.get("/audit/")  # 403
            run.get("/e/local/new/")  # 403
            answers += run.answers
            answers.append(
                (
                    "POST without CSRF",
                    http.post(
                        session_url("local", SOURCE, "session_rename"), data={"op": "rename"}
                    ),
                )
            )
    finally:
        server.stop()
        client.close()
    yield {"answers": answers, "data_dir": data_dir, "log": server.log_path.read_text()}


def _flows(run: Run) -> None:
    source_page = session_url("local", SOURCE)
    run.get("/e/local/sessions/")
    run.get("/e/local/sessions/?children=1")
    run.get(source_page)
    run.get(session_url("local", SOURCE, "session_messages", after=0))
    run.get(session_url("local", "no-such-session"))
    # Create: with a canary prompt; then a refused one quoting a canary title.
    run.submit(
        "/e/local/new/",
        session_id="canary-created",
        title=CANARIES["created_title"],
        model="",
        system_prompt=CANARIES["created_prompt"],
    )
    run.submit(
        "/e/local/new/",
        session_id="canary-dup",
        title=CANARIES["title"],
        model="",
        system_prompt=CANARIES["created_prompt"],
    )
    # Rename, a refused rename, and a close.
    edit = session_url("local", "canary-created", "session_rename")
    run.submit(edit, op="rename", title=CANARIES["renamed"])
    run.submit(edit, op="rename", title=CANARIES["title"])
    run.submit(edit, op="close", reason="resolved", other="")
    # Fork: the non-atomic duplicate-title failure, then a clean fork.
    fork = session_url("local", SOURCE, "session_fork")
    run.submit(fork, child_id="canary-kid-dup", title=CANARIES["renamed"])
    run.submit(fork, child_id="canary-kid", title=CANARIES["fork_title"])
    run.get(session_url("local", "canary-kid"))
    run.get("/audit/")
    # Uncertain and failed changes on an endpoint nobody answers.
    uncertain = run.submit(
        "/e/dead/new/",
        session_id="canary-dead",
        title=CANARIES["title"],
        model="",
        system_prompt=CANARIES["dead_prompt"],
    )
    run.get(uncertain.headers.get("hx-redirect") or _check_url(uncertain.text))
    run.blind(
        session_url("dead", "canary-dead", "session_rename"), op="rename", title=CANARIES["renamed"]
    )
    run.blind(session_url("dead", SOURCE, "session_fork"), child_id="", title="")
    run.get(session_url("dead", SOURCE))
    run.get(session_url("dead", SOURCE, "session_fork"))


def _check_url(html: str) -> str:
    # The outcome page's "Check what happened" is a form posting to the check URL;
    # a GET of that URL reads the same state.
    return "/e/dead/changes/" + html.split('action="/e/dead/changes/', 1)[1].split('"', 1)[0]


@pytest.mark.peer
def test_the_flows_really_ran(canary_run):
    answers = canary_run["answers"]
    texts = [a.text for _, a in answers]
    statuses = [a.status_code for _, a in answers]
    assert 302 in statuses and 400 in statuses and 403 in statuses and 404 in statuses
    assert any("Outcome uncertain" in t for t in texts)
    assert any('data-check="Title set"' in t for t in texts)  # the fork reconcile panel
    assert any(CANARIES["message"] in t for t in texts)  # the transcript page did show it
    assert "audit capability=session_fork" in canary_run["log"]


@pytest.mark.peer
def test_no_response_ever_shows_a_key_or_a_prompt(canary_run):
    for name, answer in canary_run["answers"]:
        for kind in NEVER_SHOWN:
            assert CANARIES[kind] not in answer.text, f"{kind} in {name}"
            assert CANARIES[kind] not in str(answer.headers), f"{kind} in headers of {name}"


@pytest.mark.peer
def test_error_pages_hold_no_transcript_text(canary_run):
    for name, answer in canary_run["answers"]:
        if answer.status_code >= 400:
            assert CANARIES["message"] not in answer.text, name


@pytest.mark.peer
def test_the_log_file_holds_no_canary(canary_run):
    log = canary_run["log"]
    assert "DEBUG" in log or "INFO" in log  # it did log
    for kind, value in CANARIES.items():
        assert value not in log, f"{kind} leaked into the log"


# The session index mirrors list rows (title, preview) by design, so it may
# hold titles and the preview of a message; never a prompt or a key.
MIRRORS = {"index_indexedsession"}


@pytest.mark.peer
def test_the_database_holds_no_canary(canary_run):
    path = canary_run["data_dir"] / "hermes_ui.sqlite3"
    with sqlite3.connect(path) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        # Table names come from sqlite_master itself, not from input.
        rows = {t: "\n".join(map(str, db.execute(f'SELECT * FROM "{t}"'))) for t in tables}  # noqa: S608
    assert "session_fork" in rows["audit_auditevent"]  # the trail is there
    assert "session_fork" in rows["audit_idempotencyrecord"]
    assert "canary-kid" in rows["index_knownfork"]
    for table, dump in rows.items():
        for kind, value in CANARIES.items():
            if table in MIRRORS and kind not in NEVER_SHOWN:
                continue
            assert value not in dump, f"{kind} stored in {table}"
    others = [
        p
        for p in canary_run["data_dir"].rglob("*")
        if p.is_file() and not p.name.startswith("hermes_ui.sqlite3")
    ]
    raw = b"".join(p.read_bytes() for p in others)
    for kind, value in CANARIES.items():
        assert value.encode() not in raw, f"{kind} in a file the app wrote"


def test_the_log_filter_withholds_exception_messages_and_masks_keys(settings):
    settings.HERMES_ENDPOINTS = {"local": Endpoint("local", "http://h", "sekrit-key-0123456789")}
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(RedactingFilter())
    logger = logging.getLogger("tests.redaction")
    logger.addHandler(handler)
    try:
        try:
            # Built at run time, so the traceback's source line does not quote it.
            words = "-".join(["private", "words"])
            raise e.BadRequest(
                f"Title {words!r} is already in use",
                code="invalid_title",
                operation="session_patch",
            )
        except e.HermesError:
            logger.exception("patch failed with Authorization: Bearer %s", "sekrit-key-0123456789")
        logger.warning("key=%s and a Bearer abc.def token", "sekrit-key-0123456789")
    finally:
        logger.removeHandler(handler)
    text = stream.getvalue()
    assert "private-words" not in text and "sekrit-key-0123456789" not in text
    assert "hermes_ui.hermes.errors.BadRequest: (message withheld)" in text
    assert "abc.def" not in text and "Bearer [redacted]" in text
    assert "test_redaction.py" in text  # the frames stay: the traceback is still useful
    assert sys.exc_info() == (None, None, None)
