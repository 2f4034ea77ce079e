"""Helpers for the changes tests: unique sessions on the real peer, form keys from pages."""

import re
import secrets

import httpx
import pytest

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.hermes.client import HermesClient, use_transport
from tests.review.access_world import review_world  # noqa: F401 (fixture)
from tests.support.peers import canary_peer, unreachable_url  # noqa: F401 (fixtures)

_KEY = re.compile(r'name="key"[^>]*value="([A-Za-z0-9_-]+)"')


def unique(prefix: str = "chg") -> str:
    return f"{prefix}-{secrets.token_hex(4)}"


def form_key(html: str) -> str:
    """The submission key of the first mutation form on a page."""
    match = _KEY.search(html)
    assert match, "no keyed form on the page"
    return match.group(1)


def submit_buttons(html: str) -> list[str]:
    """The labels of the submit buttons in ``html``."""
    return re.findall(r'<button type="submit"[^>]*>([^<]*)</button>', html)


@pytest.fixture(scope="package")
def changes_dashboard(tmp_path_factory, changes_peer):
    """The real app under uvicorn, in front of this area's peer and of one nobody answers."""
    from tests.support.browser import DashboardServer

    dead = {
        "HERMES_EXTRA_ENDPOINTS": f"dead={unreachable_url()}",
        "HERMES_API_KEY_DEAD": "d" * 24,
        "HERMES_READ_RETRIES": "0",
    }
    server = DashboardServer(
        tmp_path_factory.mktemp("changes-ui"), changes_peer, extra_env=dead
    ).start()
    yield server
    server.stop()


def make_session(
    client: HermesClient, *, title: str | None = None, chat: str | None = None, **fields
) -> dict:
    """A new session on the peer, as the API row (a plain dict)."""
    session_id = fields.pop("session_id", None) or unique("src")
    row = client.create_session(
        idempotency_key=mint_key(), session_id=session_id, title=title, **fields
    )
    if chat:
        client.chat(session_id, message=chat)
    return row.as_row()


class Faults:
    """An httpx.MockTransport handler: the real peer behind it, faults injected per request.

    ``rules`` maps (method, path suffix) to a fault: ``"lost"`` forwards the
    request to the real peer and then loses the answer (a read timeout
    after Hermes acted), ``"drop"`` drops the connection before anything is
    sent, ``"timeout"`` times out before anything is sent, or an HTTP status
    (429, 500, 502, 503) answered without forwarding.
    """

    def __init__(self, rules: dict | None = None):
        self.rules = dict(rules or {})
        self.requests: list[httpx.Request] = []
        self._real = httpx.HTTPTransport()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        fault = next(
            (
                f
                for (method, suffix), f in self.rules.items()
                if request.method == method and request.url.path.endswith(suffix)
            ),
            None,
        )
        if fault == "drop":
            raise httpx.RemoteProtocolError("connection dropped", request=request)
        if fault == "timeout":
            raise httpx.ReadTimeout("timed out", request=request)
        if isinstance(fault, int):
            return httpx.Response(fault, text="upstream trouble")
        response = self._real.handle_request(request)
        response.read()
        if fault == "lost":
            raise httpx.ReadTimeout("answer lost", request=request)
        return response

    def sent(self, method: str, suffix: str = "") -> list[httpx.Request]:
        return [r for r in self.requests if r.method == method and r.url.path.endswith(suffix)]

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)


@pytest.fixture
def faults(changes_endpoint):
    """Fault injection in front of the real peer, for every client the views create."""
    rules = Faults()
    with use_transport(rules.transport):
        yield rules


_CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def csrf_of(html: str) -> str:
    return _CSRF.search(html).group(1)


def http_login(http: httpx.Client, username: str) -> None:
    """Log an httpx client in to a running dashboard (tests.support.browser.DashboardServer)."""
    from tests.support.browser import PASSWORD

    page = http.get("/accounts/login/")
    answer = http.post(
        "/accounts/login/",
        data={
            "username": username,
            "password": PASSWORD,
            "csrfmiddlewaretoken": csrf_of(page.text),
        },
    )
    assert answer.status_code == 302, answer.text[:500]
