"""``make run``: the dashboard on the embedded demo peer, or on HERMES_API_URL."""

import os
import signal
import subprocess
import sys

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from devtools.demo import DEMO_USERS, demo_passwords, start_demo_peer
from devtools.peer.launcher import PeerError
from hermes_ui.accounts import ensure_user


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
        else:
            self.stdout.write("Starting the embedded demo Hermes peer (hermes-agent 0.19.0)…")
            try:
                peer, summary = start_demo_peer()
            except PeerError as exc:
                raise CommandError(f"The demo peer did not start: {exc}") from None
            env.update(HERMES_API_URL=peer.base_url, HERMES_API_KEY=peer.key)
            self.stdout.write(
                f"Demo peer at {peer.base_url} ({summary.get('sessions', '?')} seeded sessions)"
            )
        passwords = demo_passwords()
        for name, role in DEMO_USERS:
            ensure_user(name, role, passwords[name])
        url = f"http://{host}:{port}/"
        self.stdout.write(self.style.SUCCESS(f"\nHermes UI: {url}"))
        self.stdout.write("Logins (username / password):")
        for name, role in DEMO_USERS:
            self.stdout.write(f"  {name:<9} {passwords[name]:<14} ({role})")
        self.stdout.write("Press Ctrl-C to stop; the demo peer stops with it.\n")
        # uvicorn serves ASGI so chat streams flow without holding a worker;
        # its access log is off because URLs can carry search text.
        argv = [sys.executable, "-m", "uvicorn", "hermes_ui.asgi:application",
                "--host", host, "--port", str(port), "--no-access-log"]  # fmt: skip
        server = subprocess.Popen(argv, env=env)
        signal.signal(signal.SIGTERM, lambda *_: server.terminate())
        try:
            server.wait()
        except KeyboardInterrupt:
            server.terminate()
            server.wait(10)
        finally:
            if peer is not None:
                peer.stop()
