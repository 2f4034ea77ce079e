"""``make run``: the dashboard on the embedded demo peer, or on HERMES_API_URL."""

import os

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from devtools.demo import DEMO_ENDPOINT_ID, DEMO_USERS, demo_passwords, start_demo_peer
from devtools.peer.launcher import PeerError
from hermes_ui import serving
from hermes_ui.accounts import create_if_missing


class Command(BaseCommand):
    help = "Run the dashboard (uvicorn, streaming-capable) on the demo peer or HERMES_API_URL."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT") or 8000))
        parser.add_argument("--host", default="127.0.0.1")

    def handle(self, *args, port, host, **options):
        call_command("migrate", verbosity=0)
        env = dict(os.environ)
        peer = None
        if os.environ.get("HERMES_API_URL"):
            if not os.environ.get("HERMES_API_KEY"):
                raise CommandError("HERMES_API_URL is set but HERMES_API_KEY is not.")
            self.stdout.write(f"Using the Hermes endpoint at {os.environ['HERMES_API_URL']}")
            # A real Hermes gets no accounts with known passwords: the operator
            # makes each one (admins hold deletion rights).
            self.stdout.write(
                "No demo accounts on a real Hermes: create yours with "
                "`manage.py create_user NAME --role admin|reviewer|support`."
            )
        else:
            self.stdout.write("Starting the embedded demo Hermes peer (hermes-agent 0.19.0)…")
            try:
                peer, summary = start_demo_peer()
            except PeerError as exc:
                raise CommandError(f"The demo peer did not start: {exc}") from None
            # Its own endpoint id: a real Hermes run as `local` from this data
            # folder keeps its index, forks, turns and deletions apart.
            env.update(
                HERMES_API_URL=peer.base_url, HERMES_API_KEY=peer.key,
                HERMES_ENDPOINT_ID=DEMO_ENDPOINT_ID,
            )  # fmt: skip
            self.stdout.write(
                f"Demo peer at {peer.base_url} ({summary.get('sessions', '?')} seeded sessions), "
                f"endpoint id {DEMO_ENDPOINT_ID!r}"
            )
        url = f"http://{host}:{port}/"
        self.stdout.write(self.style.SUCCESS(f"\nHermes UI: {url}"))
        if peer is not None:
            self._demo_logins()
        self.stdout.write("Press Ctrl-C to stop; the demo peer stops with it.\n")
        # uvicorn serves ASGI so chat streams flow without holding a worker; the
        # index refresher is its own process beside it, as under ``make serve``.
        argvs = [serving.uvicorn_argv(host, port), serving.refresher_argv()]
        try:
            serving.supervise(argvs, serving.child_env(env))
        finally:
            if peer is not None:
                peer.stop()

    def _demo_logins(self) -> None:
        """Demo accounts exist only beside the embedded peer, and a start never resets one."""
        passwords = demo_passwords()
        kept = [
            name for name, role in DEMO_USERS if not create_if_missing(name, role, passwords[name])
        ]
        self.stdout.write("Demo logins (username / password, kept in data/demo-logins.json):")
        for name, role in DEMO_USERS:
            self.stdout.write(f"  {name:<9} {passwords[name]:<14} ({role})")
        if kept:
            self.stdout.write(
                "Accounts that already existed were left as they are: a changed password "
                "or a deactivated account is not reset."
            )
