"""``make run``: the dashboard on the embedded demo peer, or on HERMES_API_URL."""

import os
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from devtools.demo import (
    DEMO_ENDPOINT_ID,
    DEMO_TEAM_USERS,
    DEMO_USERS,
    create_team_logins,
    demo_passwords,
    start_demo_peer,
    team_endpoints,
)
from devtools.peer.launcher import PeerError
from devtools.peer.paging import PagingPeer
from hermes_ui.access.accounts import create_if_missing
from hermes_ui.endpoint_status import probes, session_api
from hermes_ui.index.models import IndexSyncState
from hermes_ui.platform import metrics, serving
from hermes_ui.platform.endpoints import Endpoint, parse_endpoints

# The banner waits this long for the periodic worker's first sync of the endpoint, so
# the URL and the logins are not scrolled away by the sync's log lines.
FIRST_SYNC_WAIT = 120.0
POLL_SECONDS = 0.25
# The periodic worker logs its report just after it records the finished sync.
SETTLE_SECONDS = 1.0


class Command(BaseCommand):
    help = "Run the dashboard (uvicorn, streaming-capable) on the demo peer or HERMES_API_URL."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT") or 8000))
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument(
            "--paging",
            action="store_true",
            help="put the paging peer (0.19.0 with the newer /messages rules) in front",
        )

    def handle(self, *args, port, host, paging=False, **options):
        call_command("migrate", verbosity=0)
        metrics.fresh_directory()  # the last run's processes are gone
        env = dict(os.environ)
        peer = None
        if os.environ.get("HERMES_API_URL"):
            if not os.environ.get("HERMES_API_KEY"):
                raise CommandError("HERMES_API_URL is set but HERMES_API_KEY is not.")
            self.stdout.write(f"Using the Hermes endpoint at {os.environ['HERMES_API_URL']}")
        else:
            self.stdout.write("Starting the embedded demo Hermes peer (hermes-agent 0.19.0)…")
            try:
                peer, summary = start_demo_peer()
            except PeerError as exc:
                raise CommandError(f"The demo peer did not start: {exc}") from None
            # Its own endpoint id: a real Hermes run as `local` from this data
            # folder keeps its index, forks, turns and deletions apart.
            teams = team_endpoints(peer)
            if paging:
                # Hermes after 0.19 pages transcripts; this shows the demo as it would run there.
                peer = PagingPeer(peer, hide_compaction=True, stop_upstream=True).start()
                self.stdout.write(f"The paging peer at {peer.base_url} is in front of it")
            env.update(
                HERMES_API_URL=peer.base_url,
                HERMES_API_KEY=peer.key,
                HERMES_ENDPOINT_ID=DEMO_ENDPOINT_ID,
                **teams,
            )
            self._know_endpoints(env)
            self.stdout.write(
                f"Demo peer at {peer.base_url} ({summary.get('sessions', '?')} seeded sessions), "
                f"endpoint id {DEMO_ENDPOINT_ID!r}"
            )
        # The accounts exist before the server does; they are listed in the banner.
        logins = self._demo_logins() if peer is not None else None
        endpoint = Endpoint(
            env.get("HERMES_ENDPOINT_ID") or "local", env["HERMES_API_URL"], env["HERMES_API_KEY"]
        )
        url = f"http://{host}:{port}/"
        since = timezone.now()
        absent = no_session_api_note(endpoint, url)
        if absent:
            self.stdout.write(self.style.ERROR(absent))

        def started(running) -> None:
            note = absent or self._wait_for_first_sync(endpoint, since, running)
            if running():
                self._banner(url, logins, note)

        # uvicorn serves ASGI so chat streams flow without holding a worker; the
        # periodic worker and one task worker are processes beside it, as under
        # ``make serve``.
        argvs = [serving.uvicorn_argv(host, port), serving.periodic_worker_argv()]
        argvs += serving.task_worker_argvs(1)
        try:
            code = serving.supervise(argvs, serving.child_env(env), started)
        finally:
            if peer is not None:
                peer.stop()
        if code:
            raise SystemExit(code)

    def _wait_for_first_sync(self, endpoint: Endpoint, since, running) -> str:
        """Wait until the periodic worker's first sync of ``endpoint`` ends; a note if it did not
        end well ("" when it did). Stops early when a child exits or we are told to stop."""
        if settings.HERMES_INDEX_REFRESH_SECONDS == 0:
            return "The index refresh is off (HERMES_INDEX_REFRESH_SECONDS=0): no index sync ran."
        ends_at = time.monotonic() + FIRST_SYNC_WAIT
        while running():
            state = (
                IndexSyncState.objects.filter(**endpoint.scope())
                .values("last_sync_at", "last_error_at", "last_error_code")
                .first()
            ) or {}
            if state.get("last_sync_at") and state["last_sync_at"] >= since:
                self._settle(running)
                return ""
            if state.get("last_error_at") and state["last_error_at"] >= since:
                self._settle(running)
                return (
                    f"The first index sync of {endpoint.id!r} failed "
                    f"({state['last_error_code'] or 'error'}); the index page says more, and "
                    "the periodic worker tries again every "
                    f"{settings.HERMES_INDEX_REFRESH_SECONDS} s."
                )
            if time.monotonic() >= ends_at:
                return (
                    f"The first index sync of {endpoint.id!r} has not finished after "
                    f"{FIRST_SYNC_WAIT:.0f} s; it goes on in the background, and pages that "
                    "do not need the index work meanwhile."
                )
            time.sleep(POLL_SECONDS)
        return ""

    @staticmethod
    def _settle(running) -> None:
        ends_at = time.monotonic() + SETTLE_SECONDS
        while running() and time.monotonic() < ends_at:
            time.sleep(min(POLL_SECONDS, SETTLE_SECONDS))

    def _banner(self, url: str, logins, note: str) -> None:
        if note:
            self.stdout.write(self.style.WARNING(f"\n{note}"))
        self.stdout.write(self.style.SUCCESS(f"\nHermes UI: {url}"))
        if logins is None:
            # A real Hermes gets no accounts with known passwords: the operator
            # makes each one (admins hold deletion rights).
            self.stdout.write(
                "No demo accounts on a real Hermes: create yours with "
                "`manage.py create_user NAME --role admin|reviewer|support`."
            )
        else:
            passwords, kept = logins
            self.stdout.write("Demo logins (username / password, kept in data/demo-logins.json):")
            for name, role in DEMO_USERS:
                self.stdout.write(f"  {name:<10} {passwords[name]:<14} ({role} on every endpoint)")
            for name, role, endpoint, sources in DEMO_TEAM_USERS:
                only = f", {'+'.join(sources)} sessions only" if sources else ""
                self.stdout.write(
                    f"  {name:<10} {passwords[name]:<14} ({role} on {endpoint}{only})"
                )
            if kept:
                self.stdout.write(
                    "Accounts that already existed were left as they are: a changed password "
                    "or a deactivated account is not reset."
                )
        self.stdout.write("Press Ctrl-C to stop; the demo peer stops with it.\n")
        self.stdout.flush()

    @staticmethod
    def _know_endpoints(env: dict) -> None:
        """This process makes the demo accounts and their grants: it must know the endpoints
        its children will serve (a grant names a configured endpoint)."""
        settings.HERMES_ENDPOINTS = parse_endpoints(
            default_id=env["HERMES_ENDPOINT_ID"],
            url=env["HERMES_API_URL"],
            key=env["HERMES_API_KEY"],
            extra=[i for i in env.get("HERMES_EXTRA_ENDPOINTS", "").split(",") if i],
            env=env,
        )

    @staticmethod
    def _demo_logins() -> tuple[dict[str, str], list[str]]:
        """Demo accounts exist only beside the embedded peer, and a start never resets one."""
        passwords = demo_passwords()
        kept = [
            name for name, role in DEMO_USERS if not create_if_missing(name, role, passwords[name])
        ]
        kept += create_team_logins(passwords)
        return passwords, kept


def no_session_api_note(endpoint: Endpoint, url: str) -> str:
    """Probe the endpoint at start-up (recorded for the pages); the banner's sentence
    when it has no session API, else ""."""
    found = probes.refresh([endpoint])[0]
    if not found.no_session_api:
        return ""
    notice = session_api.notice(endpoint, found.version)
    return f"{session_api.sentence(notice)}. See {url.rstrip('/')}{notice['endpoints_url']}"
