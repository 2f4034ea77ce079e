"""The live tests' own peer: they add, rename and close sessions on it."""

import pytest

from tests.support.browser import DashboardServer
from tests.support.peers import live_endpoint, live_peer  # noqa: F401 (fixtures)


@pytest.fixture(scope="package")
def live_dashboard(tmp_path_factory, live_peer):  # noqa: F811 (the imported fixture)
    """The real app under uvicorn with the periodic worker, polling watched endpoints fast."""
    server = DashboardServer(
        tmp_path_factory.mktemp("live-ui"),
        live_peer,
        extra_env={
            "HERMES_INDEX_REFRESH_SECONDS": "60",
            "HERMES_UI_LIVE_SECONDS": "0.5",
            # The many-streams test opens 200 as one person.
            "HERMES_UI_LIVE_STREAMS_PER_PERSON": "1000",
        },
        refresher=True,
    ).start()
    yield server
    server.stop()


@pytest.fixture(scope="package")
def live_logins(chromium, live_dashboard):
    """One form login per person on ``live_dashboard`` for the browser tests: they need
    someone signed in, not a sign-in."""
    from tests.support.browser import Logins

    return Logins(chromium, live_dashboard.base_url)
