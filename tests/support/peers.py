"""Real Hermes peers for the suite (hermes-agent 0.19.0 in .peer-venv, the stub model).

Every peer starts through ``running_peer``, the one factory (release, seed, proxy
rules, profiles). A package-scoped fixture is one peer per package that imports it;
a session-scoped one is shared by every package whose tests only add sessions of
their own. See docs/development/testing.md.
"""

from __future__ import annotations

import atexit
import copy
import json
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

import pytest
from django.test import override_settings

from devtools.peer.launcher import (
    PEER_VERSION,
    Peer,
    PeerConfig,
    ensure_peer_venv,
    free_port,
    run_seed,
)
from devtools.peer.paging import PagingPeer
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.hermes.client import HermesClient
from hermes_ui.index import sync
from hermes_ui.platform.endpoints import Endpoint
from tests.support.shared import made_once

# Throwaway peers: no graceful shutdown is worth waiting for, or starting, on the way out.
STOP_GRACE = 0


@contextmanager
def running_peer(
    home: Path,
    *,
    seed: str | None = None,
    seed_count: int = 10000,
    copy_of: Path | None = None,
    version: str = PEER_VERSION,
    rules: dict | None = None,
    **config,
) -> Iterator[Peer | PagingPeer]:
    """The suite's one peer factory: a healthy hermes-agent ``version`` peer in ``home``,
    stopped on the way out.

    ``seed`` copies a home seeded once per process with that profile (``seed_count``
    sessions for the bench and paging profiles), ``copy_of`` copies a given home;
    ``rules`` puts the newer-Hermes proxy (``PagingPeer`` options) in front and yields
    it; ``config`` goes to ``PeerConfig`` (key, profiles, context_length...).
    """
    python = ensure_peer_venv(version=version)
    if seed:
        copy_of = seeded_home(seed, version, python, seed_count)
    if copy_of:
        shutil.copytree(copy_of, home, dirs_exist_ok=True)
    peer = Peer(PeerConfig(home=home, peer_python=python, **config))
    try:
        peer.start()
        peer.wait_healthy(60)
        if rules is None:
            yield peer
        else:
            with PagingPeer(peer, **rules) as proxy:
                yield proxy
    finally:
        peer.stop(timeout=STOP_GRACE)


def seeded_home(seed: str, version: str, python: Path, count: int = 10000) -> Path:
    """A home seeded with profile ``seed`` by release ``version``, made once per run;
    peers start from a copy of it (seeding is a process of its own over thousands of
    messages)."""

    def make(home: Path) -> None:
        run_seed(home, seed, count=count, peer_python=python)

    return made_once(f"seed-{seed}-{version}-{count}", make)


def unreachable_url() -> str:
    """An address nobody listens on: Hermes is down."""
    return f"http://127.0.0.1:{free_port()}"


def unreachable(settings, key: str = "k" * 24) -> Endpoint:
    """Point the ``local`` endpoint at :func:`unreachable_url`."""
    endpoint = Endpoint("local", unreachable_url(), key)
    settings.HERMES_ENDPOINTS = {"local": endpoint}
    return endpoint


def endpoint_for(settings, peer: Peer) -> Endpoint:
    """Point the ``local`` endpoint at ``peer``."""
    endpoint = Endpoint("local", peer.base_url, peer.key)
    settings.HERMES_ENDPOINTS = {"local": endpoint}
    settings.HERMES_ENDPOINT_ID = "local"
    return endpoint


# -- the shared peer (imported by tests/conftest.py) ---------------------------------
# Started once per run with the demo seed. Tests that change data create their own
# sessions; tests that destroy seeded data ask for ``fresh_peer``.


# A pytest run inside a test (tests/scale/test_task_suite_postgres.py) is handed the
# outer run's peer here (``share_peer``) instead of starting one of its own.
SHARED_PEER = "HERMES_UI_SHARED_PEER"


@pytest.fixture(scope="session")
def hermes_peer(tmp_path_factory):
    if os.environ.get(SHARED_PEER):
        yield shared_peer(os.environ[SHARED_PEER])
        return
    with running_peer(tmp_path_factory.mktemp("hermes-peer"), seed="demo") as peer:
        yield peer


def share_peer(peer: Peer) -> dict:
    """The environment that hands ``peer`` to a pytest run in a child process (it stays
    this process's to stop)."""
    config = peer.config
    where = {"home": str(config.home), "host": config.host, "key": config.key}
    where |= {"port": peer.port, "model_port": peer.model_port}
    return {SHARED_PEER: json.dumps(where)}


def shared_peer(text: str) -> Peer:
    """The running peer ``share_peer`` described, not started or stopped here."""
    where = json.loads(text)
    return Peer(PeerConfig(**{**where, "home": Path(where["home"])}))


@pytest.fixture
def fresh_peer(tmp_path):
    """A peer with its own freshly seeded database, for destructive tests."""
    with running_peer(tmp_path / "hermes-home", seed="demo") as peer:
        yield peer


@pytest.fixture
def peer_endpoint(settings, hermes_peer):
    return endpoint_for(settings, hermes_peer)


# -- the compare and export peer ------------------------------------------------------
# Those tests fork sessions and chat turns into new ones; an API fork changes how
# Hermes resolves the parent's transcript, which checks of other areas over the whole
# shared database would trip over.


@pytest.fixture(scope="package")
def review_peer(tmp_path_factory):
    with running_peer(tmp_path_factory.mktemp("review-peer"), seed="demo") as peer:
        yield peer


@pytest.fixture
def review_endpoint(settings, review_peer):
    return endpoint_for(settings, review_peer)


@pytest.fixture
def review_client(review_endpoint):
    """A client for arranging state on the review peer directly (not through the views)."""
    client = HermesClient(review_endpoint)
    yield client
    client.close()


# -- the changes (and audit trail) peer ----------------------------------------------


@pytest.fixture(scope="session")
def changes_peer(tmp_path_factory):
    """An unseeded peer of the changes, audit and flags tests: each makes its own sessions.

    Forks change how Hermes resolves a parent's transcript, which checks over the
    whole seeded database of other areas would trip over.
    """
    with running_peer(tmp_path_factory.mktemp("changes-peer")) as peer:
        yield peer


@pytest.fixture
def changes_endpoint(settings, changes_peer):
    return endpoint_for(settings, changes_peer)


@pytest.fixture
def changes_client(changes_endpoint):
    """A client for arranging state on the changes peer directly (not through the views)."""
    client = HermesClient(changes_endpoint)
    yield client
    client.close()


# -- the usage peer --------------------------------------------------------------------
# Its tests chat turns into sessions and delete some; the demo seed gives lineages to sum.


@pytest.fixture(scope="package")
def usage_peer(tmp_path_factory):
    with running_peer(tmp_path_factory.mktemp("usage-peer"), seed="demo") as peer:
        yield peer


@pytest.fixture
def usage_endpoint(settings, usage_peer):
    return endpoint_for(settings, usage_peer)


# -- chat peers with special configurations ------------------------------------------


@pytest.fixture(scope="session")
def rotating_peer(tmp_path_factory):
    """Compression with ``in_place: false``: the rotation recipe rotates the session id."""
    with running_peer(tmp_path_factory.mktemp("rotating-peer"), rotate_compression=True) as peer:
        yield peer


@pytest.fixture(scope="session")
def erroring_peer(tmp_path_factory):
    """A context window below 64,000: every turn ends in an SSE ``error`` event."""
    with running_peer(tmp_path_factory.mktemp("erroring-peer"), context_length=32000) as peer:
        yield peer


# -- two fresh peers for one test (an endpoint id moved between servers) --------------


@pytest.fixture
def fresh_peer_pair(tmp_path):
    with running_peer(tmp_path / "peer-a") as a, running_peer(tmp_path / "peer-b") as b:
        yield a, b


# -- two peers at once, endpoints ``a`` and ``b`` (bulk, endpoint status, verification) --
# One pair for the three packages: their tests only add sessions of their own.


@pytest.fixture(scope="session")
def two_peers(tmp_path_factory):
    with (
        running_peer(tmp_path_factory.mktemp("operate-a")) as a,
        running_peer(tmp_path_factory.mktemp("operate-b")) as b,
    ):
        yield a, b


@pytest.fixture
def endpoints(settings, two_peers):
    """``a`` and ``b`` point at the two peers; ``down`` at an address nobody answers."""
    peer_a, peer_b = two_peers
    table = {
        "a": Endpoint("a", peer_a.base_url, peer_a.key),
        "b": Endpoint("b", peer_b.base_url, peer_b.key),
    }
    settings.HERMES_ENDPOINTS = table
    settings.HERMES_ENDPOINT_ID = "a"
    return table


@pytest.fixture
def with_down(settings, endpoints):
    down = Endpoint("down", unreachable_url(), "d" * 24)
    settings.HERMES_ENDPOINTS = {**endpoints, "down": down}
    return down


def make(endpoint: Endpoint, session_id: str, title: str | None = None, chat: bool = False):
    client = HermesClient(endpoint)
    try:
        client.create_session(
            idempotency_key=mint_key(), session_id=session_id, title=title or session_id
        )
        if chat:
            client.chat(session_id, message="hello")
        return client.get_session(session_id)
    finally:
        client.close()


def read(endpoint: Endpoint, session_id: str):
    client = HermesClient(endpoint)
    try:
        return client.get_session(session_id)
    finally:
        client.close()


def index(endpoint: Endpoint, *, transcripts: bool = True) -> None:
    """A full sync of ``endpoint``; ``transcripts=False`` for tests that never search
    transcripts: it reads none (``HERMES_INDEX_CONTENT`` off), as reading every seeded
    one was most of the sync."""
    with override_settings(HERMES_INDEX_CONTENT=False) if not transcripts else nullcontext():
        report = sync.sync(endpoint, full=True)
    assert not report.error_code, report.error_code


# -- the triage (watermarks) peer ------------------------------------------------------
# No seed: every test makes its sessions, chats into them and deletes some.


@pytest.fixture(scope="package")
def triage_peer(tmp_path_factory):
    with running_peer(tmp_path_factory.mktemp("triage-peer")) as peer:
        yield peer


@pytest.fixture
def triage_endpoint(settings, triage_peer):
    return endpoint_for(settings, triage_peer)


@pytest.fixture
def triage_client(triage_endpoint):
    client = HermesClient(triage_endpoint)
    yield client
    client.close()


# -- the review dataset peer -----------------------------------------------------------


@pytest.fixture(scope="package")
def dataset_peer(tmp_path_factory):
    """A seeded peer of the review data tests: they add sessions and index transcripts."""
    with running_peer(tmp_path_factory.mktemp("review-data-peer"), seed="demo") as peer:
        yield peer


@pytest.fixture
def dataset_endpoint(settings, dataset_peer):
    return endpoint_for(settings, dataset_peer)


# -- the canary peer -------------------------------------------------------------------
# Its API key is itself a canary: tests/changes/test_redaction.py proves it never shows.
CANARY_KEY = "canarykey" + secrets.token_hex(12)


@pytest.fixture(scope="module")
def canary_peer(tmp_path_factory):
    """A peer whose API key is itself a canary (``CANARY_KEY``)."""
    with running_peer(tmp_path_factory.mktemp("canary-peer"), key=CANARY_KEY) as peer:
        yield peer


# -- the archive peer (tests/index/test_archived.py) ------------------------------------


@pytest.fixture(scope="module")
def archive_peer(tmp_path_factory):
    """An empty peer whose sessions the test archives through Hermes' own SessionDB."""
    with running_peer(tmp_path_factory.mktemp("archive-peer")) as peer:
        yield peer


# -- peers of older releases (the release matrix, docs/operating/hermes-releases.md) -----
# Each release runs from its own cached virtualenv (``.peer-venv-<version>``).
SMOKE_RELEASES = ("0.15.2", "0.17.0")
TOO_OLD = "0.13.0"


@pytest.fixture(scope="package", params=SMOKE_RELEASES)
def release_peer(request, tmp_path_factory):
    """One seeded peer per smoke release and package."""
    with running_peer(
        tmp_path_factory.mktemp(f"release-{request.param}"), seed="demo", version=request.param
    ) as peer:
        peer.version = request.param
        yield peer


@pytest.fixture
def release_endpoint(settings, release_peer):
    return endpoint_for(settings, release_peer)


@pytest.fixture
def peer_0152(tmp_path):
    """A freshly seeded 0.15.2 peer for a destructive test (its DELETE does not cascade)."""
    with running_peer(tmp_path / "hermes-0.15.2", seed="demo", version="0.15.2") as peer:
        yield peer


@pytest.fixture(scope="package")
def too_old_peer(tmp_path_factory):
    """hermes-agent 0.13.0: an API server without the session routes."""
    with running_peer(tmp_path_factory.mktemp("release-too-old"), version=TOO_OLD) as peer:
        yield peer


# -- the retention peer (tests/retention/): cron and telegram sessions of several ages ----
AGES_SEED = Path(__file__).parent.parent / "retention" / "seed_ages.py"


_aged: dict[str, object] = {}


def aged_home() -> tuple[Path, dict]:
    """A home seeded by ``AGES_SEED`` and its ids by role, made once per test process.

    Its ages are days and months: the minutes between two tests do not move a session
    across a rule's boundary.
    """
    import json
    import subprocess

    if not _aged:
        home = Path(tempfile.mkdtemp(prefix="hermes-aged-"))
        atexit.register(shutil.rmtree, home, ignore_errors=True)
        done = subprocess.run(
            [str(ensure_peer_venv()), str(AGES_SEED), "--home", str(home)],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        _aged.update(home=home, ids=json.loads(done.stdout))
    return _aged["home"], _aged["ids"]


@pytest.fixture
def aged(settings, tmp_path):
    """A fresh peer with the aged sessions (each test deletes some), indexed; yields
    (endpoint, the seeded ids by role)."""
    seeded, ids = aged_home()
    with running_peer(tmp_path / "hermes-home", copy_of=seeded) as peer:
        endpoint = endpoint_for(settings, peer)
        index(endpoint)
        yield endpoint, copy.deepcopy(ids)


# -- the live updates peer (tests/live/): the tests add, rename and close sessions on it --


@pytest.fixture(scope="package")
def live_peer(tmp_path_factory):
    with running_peer(tmp_path_factory.mktemp("live-peer"), seed="demo") as peer:
        yield peer


@pytest.fixture
def live_endpoint(settings, live_peer):
    return endpoint_for(settings, live_peer)


# -- the paging peer (tests/paging/): 0.19.0 with the newer /messages rules in front ------
# Hermes after 0.19 pages a transcript's messages (devtools/peer/paging.py); no such
# release installs here, so the real 0.19.0 server answers behind a proxy that applies
# the newer handler's rules. Its database holds the paging seed (1,200 and 3,000 messages).


@pytest.fixture(scope="package")
def paging_peer(tmp_path_factory):
    """The paging peer: yields the proxy (``base_url``, ``key``); ``.upstream`` is the
    0.19.0 server behind it."""
    home = tmp_path_factory.mktemp("paging-peer")
    rules = {"hide_compaction": True}
    with running_peer(home, seed="paging", seed_count=0, rules=rules) as paging:
        yield paging


@pytest.fixture
def paging_endpoint(settings, paging_peer):
    return endpoint_for(settings, paging_peer)


# -- the profiles peer (tests/profiles/): one 0.19.0 server, two multiplexed profiles ----
# ``gateway.multiplex_profiles`` on; ``support`` and ``sales`` each have their own
# state.db under HERMES_HOME/profiles/<name>/ and answer under /p/<name>/.
PROFILES = ("support", "sales")


@pytest.fixture(scope="package")
def profiles_peer(tmp_path_factory):
    with running_peer(tmp_path_factory.mktemp("profiles-peer"), profiles=PROFILES) as peer:
        yield peer


@pytest.fixture
def profile_endpoints(settings, profiles_peer):
    """``support`` and ``sales``: one endpoint per profile of the same server."""
    table = {
        name: Endpoint(name, profiles_peer.profile_url(name), profiles_peer.key)
        for name in PROFILES
    }
    settings.HERMES_ENDPOINTS = table
    settings.HERMES_ENDPOINT_ID = "support"
    return table


# -- the flags peer (tests/flags/): 0.19.0 with the newer session-flag rules in front ------
# Hermes after 0.19 accepts pinned/archived/hidden/unread in PATCH and leaves archived
# rows out of its list (devtools/peer/paging.py, ``session_flags``); no such release
# installs here, so the real 0.19.0 answers behind the proxy that applies those rules.


@pytest.fixture(scope="package")
def flags_peer(tmp_path_factory):
    """The proxy (``base_url``, ``key``) with the newer flag rules; ``.upstream`` is 0.19.0."""
    rules = {"session_flags": True}
    with running_peer(tmp_path_factory.mktemp("flags-peer"), rules=rules) as proxy:
        yield proxy


@pytest.fixture
def flags_endpoint(settings, flags_peer):
    return endpoint_for(settings, flags_peer)
