"""Every route, as a person who may see one endpoint (or one source of it): no canary leaks.

Issue 48 item 6: the rule holds on routes nobody has written yet. The walk
reads the resolver's URL patterns and the API's OpenAPI document, fills each
route's kwargs from one table (``walk.KWARGS``: a route with a kwarg it does
not know fails) and asks every route for the canary endpoint and session.
Every leak is collected and reported at the end, one line each. How to
extend it: docs/development/testing.md, "The route walk".
"""

from __future__ import annotations

import json

import pytest
from django.test import Client

from hermes_ui.access import grants
from hermes_ui.access.grants import set_role
from hermes_ui.hermes.client import use_transport
from hermes_ui.platform.endpoints import Endpoint
from tests.access import walk
from tests.conftest import TEST_KEY

# Routes whose answer cannot depend on who asks: each with its reason. Keep it short.
NOT_WALKED = {
    # POSTing it would sign the walker out before the routes after it.
    ("POST", "logout"): "ends the walker's own session",
}

# Searches asked on the "open" passes besides the bare URL: each matches the canary
# sessions' text, title or source, so a search that forgets the rule shows them.
QUERIES = {
    "session_list": ["?q=words", "?q=title", f"?source={walk.CANARY_SOURCE}", "?q=words&table=1"],
    "usage": [f"?source={walk.CANARY_SOURCE}"],
    "audit_log": [f"?q={walk.CANARY_ID}", f"?session={walk.CANARY_ID}"],
    "live_stream": ["?after=0"],  # the summary of the changes since the first event
}


@pytest.fixture
def walk_endpoints(settings):
    settings.HERMES_ENDPOINTS = {
        walk.OPEN: Endpoint(walk.OPEN, "http://open.test", TEST_KEY),
        walk.HIDDEN: Endpoint(walk.HIDDEN, f"http://{walk.HIDDEN}.test", TEST_KEY),
    }
    settings.HERMES_ENDPOINT_ID = walk.OPEN
    # A live stream answers once and ends (the poll answer) instead of following.
    settings.HERMES_UI_LIVE_MAX_STREAMS = 0
    settings.HERMES_UI_API_RATE = 100_000


class World:
    """The walker, the canaries and what the walk found."""

    def __init__(self, walker, planted: walk.Planted, source_pass: bool, transport: walk.Hosts):
        self.walker = walker
        self.planted = planted
        self.source_pass = source_pass
        self.transport = transport
        self.found: list[str] = []
        self.walked = 0

    def note(self, what: str, method: str, url: str, status: int, problem: str) -> None:
        self.found.append(f"{what:<28} {method:<6} {url}  -> {status}: {problem}")

    def judge(self, what, method, url, response, text, *, asked=(), must_404=False):
        self.walked += 1
        status = response.status_code
        leaked = walk.leaks(text, tuple(echo for echo in asked if echo in url))
        if leaked:
            self.note(what, method, url, status, "leaks " + ", ".join(leaked))
        if status == 302 and response["Location"].startswith("/accounts/login/"):
            # Every later answer would be the sign-in page: the walk would prove nothing.
            self.note(what, method, url, status, "the walker was signed out")
        if must_404 and status not in (404, 405):
            self.note(what, method, url, status, "expected 404")
        elif status >= 500:
            self.note(what, method, url, status, "server error")

    def report(self) -> str:
        head = f"{len(self.found)} problems in {self.walked} answers (route, method, URL):"
        return head + "\n" + "\n".join(self.found)


def _world(source_pass: bool, role: str, sources: list[str], django_user_model) -> World:
    owner = django_user_model.objects.create_user("olga")
    set_role(owner, "admin")
    walker = django_user_model.objects.create_user("walker")
    grants.grant(walk.OPEN, role, sources, user=walker)
    open_, hidden = walk.hermes(source_pass=source_pass)
    walk.index_rows(walk.OPEN, open_)
    walk.index_rows(walk.HIDDEN, hidden)
    planted = walk.Planted()
    walk.plant(walk.HIDDEN, owner, walker, planted)
    if source_pass:
        walk.plant(walk.OPEN, owner, walker, planted)
    walk.instance_rows(owner, walker, planted)
    walk.without_session_api(walk.HIDDEN)
    return World(walker, planted, source_pass, walk.Hosts(open=open_, **{walk.HIDDEN: hidden}))


# (a) support on "open", every source; (b) reviewer on "open", only its "cli" sessions;
# (c) admin on "open": the admin pages (deletion queue, audit, retention) are walked too.
PEOPLE = {
    "one-endpoint": (False, "support", []),
    "one-endpoint-admin": (False, "admin", []),
    "one-source": (True, "reviewer", ["cli"]),
}


@pytest.fixture(params=sorted(PEOPLE))
def walk_world(request, db, walk_endpoints, django_user_model):
    import httpx

    source_pass, role, sources = PEOPLE[request.param]
    world = _world(source_pass, role, sources, django_user_model)
    with use_transport(httpx.MockTransport(world.transport)):
        yield world


def _flashed(client, response) -> str:
    """The messages the answer queued for the next page, taken off it: a refused action's
    message ("could not delete <title>") counts against the route that queued it."""
    storage = getattr(response.wsgi_request, "_messages", None)
    queued = " ".join(str(m) for m in getattr(storage, "_queued_messages", []))
    if queued:
        session = client.session
        session.pop("_messages", None)
        session.save()
        client.cookies.pop("messages", None)
    return queued.lower()


def _passes(world: World):
    """(endpoint, session id, which routes, must they 404, what the URL itself names)."""
    yield walk.HIDDEN, walk.CANARY_ID, "all", True, (walk.HIDDEN, walk.CANARY_ID)
    yield walk.OPEN, walk.OPEN_ROOT, "endpoint", False, ()
    yield walk.OPEN, walk.OPEN_CHILD, "session", False, ()
    if world.source_pass:
        yield walk.OPEN, walk.CANARY_ID, "session", True, (walk.CANARY_ID,)


def _chosen(route: walk.Route, which: str) -> bool:
    if which == "endpoint":
        return "endpoint" in route.kwargs
    if which == "session":
        return route.session_scoped
    return True


def walk_pages(world: World, routes: list[walk.Route]) -> list[str]:
    """Ask every route of ``routes`` in every pass; ``world.found`` gathers the leaks.
    Returns the routes the kwarg table cannot fill."""
    client = Client()
    client.force_login(world.walker)
    unknown = []
    for endpoint, session_id, which, must_404, asked in _passes(world):
        values = {"endpoint": endpoint, "session_id": session_id}
        for route in routes:
            if not _chosen(route, which):
                continue
            try:
                url = walk.fill(route, values, world.planted)
            except walk.UnknownKwarg as exc:
                unknown.append(str(exc))
                continue
            # The API reads no session cookie: test_no_api_route_... walks it with tokens.
            expect = must_404 and "endpoint" in route.kwargs and not route.api
            if route.session_scoped and endpoint == walk.OPEN and must_404:
                expect = not route.api
            response = client.get(url)
            text = walk.text_of(response) + _flashed(client, response)
            world.judge(route.name, "GET", url, response, text, asked=asked, must_404=expect)
            if which != "session" and not route.api:
                # htmx asks for a fragment: a second template, a second chance to forget.
                fragment = client.get(url, HTTP_HX_REQUEST="true")
                text = walk.text_of(fragment) + _flashed(client, fragment)
                world.judge(route.name, "GET hx", url, fragment, text, asked=asked, must_404=expect)
            searches = QUERIES.get(route.name, [])
            if "endpoint" in route.kwargs and endpoint != walk.OPEN:
                searches = []  # the hidden endpoint answers 404 whatever is asked
            for query in searches:
                searched = client.get(url + query)
                # The search box repeats what was asked: that tells nothing.
                world.judge(
                    route.name,
                    "GET",
                    url + query,
                    searched,
                    walk.text_of(searched),
                    asked=(*asked, walk.CANARY_SOURCE, walk.CANARY_ID),
                )
            # POST too where GET is refused, and everywhere in the hidden pass (an empty
            # form: the refusal, or the form's errors, must tell nothing either).
            post = response.status_code == 405 or (which == "all" and not route.api)
            if post and ("POST", route.name) not in NOT_WALKED:
                response = client.post(url, {})
                text = walk.text_of(response) + _flashed(client, response)
                world.judge(route.name, "POST", url, response, text, asked=asked, must_404=expect)
    return unknown


def test_no_page_shows_what_the_person_may_not_see(walk_world):
    unknown = walk_pages(walk_world, walk.routes())
    assert not unknown, "Routes the walk cannot fill:\n" + "\n".join(sorted(set(unknown)))
    if walk_world.found:
        pytest.fail(walk_world.report(), pytrace=False)


def _body(operation: dict, schemas: dict, values: dict) -> dict:
    """A valid JSON body for an operation, from its schema: a write must reach the rule
    (a 422 for a missing field would tell nothing about it)."""
    content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    ref = content.get("schema", {}).get("$ref", "")
    schema = schemas.get(ref.rsplit("/", 1)[-1], {})
    plausible = {"string": "ordinary-tag", "integer": 1, "array": [values["session_id"]]}
    body = {
        name: [1] if prop.get("items", {}).get("type") == "integer" else plausible[prop["type"]]
        for name, prop in schema.get("properties", {}).items()
        if prop.get("type") in plausible
    }
    if "message" in body:  # a chat turn: refused after the rule, before a stream starts
        body["message"] = ""
    return body


def test_no_api_route_shows_what_the_person_may_not_see(walk_world):
    from hermes_ui.api_tokens import tokens

    _token, plain = tokens.issue(walk_world.walker, "walk", write=True)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {plain}")
    reader = Client()  # the document is a page: read with the walker's session
    reader.force_login(walk_world.walker)
    document = reader.get("/api/v1/openapi.json")
    assert document.status_code == 200
    paths = document.json()["paths"]
    schemas = document.json().get("components", {}).get("schemas", {})
    assert paths, "the OpenAPI document lists no route"
    unknown = []
    for endpoint, session_id, which, must_404, asked in _passes(walk_world):
        values = {"endpoint": endpoint, "session_id": session_id}
        for path, methods in paths.items():
            scoped = "{endpoint}" in path
            if which == "endpoint" and not scoped:
                continue
            if which == "session" and "{session_id}" not in path:
                continue
            try:
                url = walk.api_fill(path, values, walk_world.planted)
            except walk.UnknownKwarg as exc:
                unknown.append(str(exc))
                continue
            expect = must_404 and scoped
            for method in methods:
                if method.upper() not in ("GET", "POST", "PUT", "PATCH", "DELETE"):
                    continue
                body = json.dumps(_body(methods[method], schemas, values))
                response = client.generic(
                    method.upper(),
                    url,
                    body,
                    content_type="application/json",
                    # Writes need one (the API refuses them before anything else without).
                    HTTP_IDEMPOTENCY_KEY=f"walk-key-{walk_world.walked:08d}",
                )
                walk_world.judge(
                    f"api {methods[method].get('operationId', path)}",
                    method.upper(),
                    url,
                    response,
                    walk.text_of(response),
                    asked=asked,
                    must_404=expect,
                )
    assert not unknown, "API routes the walk cannot fill:\n" + "\n".join(sorted(set(unknown)))
    if walk_world.found:
        pytest.fail(walk_world.report(), pytrace=False)


@pytest.mark.parametrize("walk_world", ["one-source"], indirect=True)
def test_the_canaries_show_to_a_person_who_may_see_them(walk_world):
    """The control: without it, a walk whose canaries never reach a page would pass."""
    from django.contrib.auth import get_user_model

    from hermes_ui.endpoint_status.models import EndpointProbe

    EndpointProbe.objects.all().delete()  # the session API is back: its pages answer
    client = Client()
    client.force_login(get_user_model().objects.get(username="olga"))  # admin on "*"
    shown = {
        f"/e/{walk.HIDDEN}/sessions/{walk.CANARY_ID}/": {"title", "message text"},  # Hermes
        f"/e/{walk.HIDDEN}/sessions/": {"session id", "title"},  # the index
        "/audit/": {"session id", "title", "source"},  # the dashboard's own rows
        f"/deletions/{walk_world.planted.pks['deletion']}/": {"message text"},
    }
    for url, expected in shown.items():
        response = client.get(url)
        assert response.status_code == 200, url
        assert expected <= set(walk.leaks(walk.text_of(response))), url


@pytest.mark.parametrize("walk_world", ["one-endpoint"], indirect=True)
def test_a_new_route_that_forgets_the_rule_is_reported(walk_world, settings):
    """A route added without asking the rule (``leaky_urls``) is found by the same walk."""
    settings.ROOT_URLCONF = "tests.access.leaky_urls"
    leaky = [route for route in walk.routes() if route.name.startswith("leaky")]
    assert len(leaky) == 2
    unknown = walk_pages(walk_world, leaky)
    assert unknown == ["leaky_session: kwarg 'ep'; add it to KWARGS"] * 2  # two passes ask it
    report = walk_world.report()
    assert "leaky_titles" in report and "leaks session id, child id, title" in report


def test_a_route_with_an_unknown_kwarg_fails_the_walk():
    """The table is the guard: a new kwarg must be named in it, not guessed."""
    new = walk.Route("new_thing", "e/<str:endpoint>/thing/<int:widget>/", ("endpoint", "widget"))
    with pytest.raises(walk.UnknownKwarg, match="widget"):
        walk.fill(new, {"endpoint": "open", "session_id": "x"}, walk.Planted())
    with pytest.raises(walk.UnknownKwarg, match="PK_OF"):
        walk.fill(walk.Route("new_pk", "things/<int:pk>/", ("pk",)), {}, walk.Planted())


def test_the_canary_check_sees_a_leak_and_ignores_the_echo():
    assert walk.leaks("<h1>canary title 7f3a</h1>") == ["title", "canary marker"]
    assert walk.leaks("session not found: canary-id-7f3a", (walk.CANARY_ID,)) == []


# --- the leaks fixed in web/, endpoint_status/ and the session page ----------------------
# (the walk above finds them too, but it also fails on every other package's leak)


@pytest.mark.parametrize("walk_world", ["one-source"], indirect=True)
def test_the_endpoints_page_lists_and_probes_only_the_persons_endpoints(walk_world):
    from hermes_ui.hermes.client import use_transport as transport

    client = Client()
    client.force_login(walk_world.walker)
    page = client.get("/endpoints/")
    assert page.status_code == 200
    assert 'id="endpoint-open"' in page.text and walk.HIDDEN not in page.text
    asked = []

    def record(request):
        asked.append(request.url.host)
        return walk_world.transport(request)

    import httpx

    with transport(httpx.MockTransport(record)):
        probed = client.post("/endpoints/probe/", HTTP_HX_REQUEST="true")
    assert probed.status_code == 200 and walk.HIDDEN not in probed.text
    assert asked and f"{walk.HIDDEN}.test" not in asked


@pytest.mark.parametrize("walk_world", ["one-source"], indirect=True)
def test_the_no_session_api_banner_and_gate_name_only_the_persons_endpoints(walk_world):
    from django.contrib.auth import get_user_model

    client = Client()
    client.force_login(walk_world.walker)
    banner = f'data-endpoint="{walk.HIDDEN}"'
    page = client.get("/account/notifications/")  # the banner is on every page
    assert page.status_code == 200 and banner not in page.text and "canary" not in page.text
    # The gate of an endpoint without the session API answered before the API's own
    # check: a 503 with its version told anyone signed in that it exists.
    answer = client.get(f"/api/v1/e/{walk.HIDDEN}/sessions")
    assert answer.status_code != 503 and "canary-version" not in answer.text
    owner = Client()
    owner.force_login(get_user_model().objects.get(username="olga"))
    assert banner in owner.get("/account/notifications/").text  # still told its admins
    assert owner.get(f"/e/{walk.HIDDEN}/sessions/").status_code == 503


@pytest.mark.parametrize("walk_world", ["one-source"], indirect=True)
def test_a_session_page_does_not_name_a_parent_of_a_hidden_source(walk_world):
    from django.contrib.auth import get_user_model

    client = Client()
    client.force_login(walk_world.walker)  # cli only; the parent is of "canary-src"
    page = client.get(f"/e/{walk.OPEN}/sessions/{walk.OPEN_CHILD}/")
    assert page.status_code == 200 and walk.OPEN_CHILD in page.text
    assert walk.CANARY_ID not in page.text
    owner = Client()
    owner.force_login(get_user_model().objects.get(username="olga"))
    shown = owner.get(f"/e/{walk.OPEN}/sessions/{walk.OPEN_CHILD}/")
    assert f"/e/{walk.OPEN}/sessions/{walk.CANARY_ID}/" in shown.text
