"""Benchmark of notifications and webhooks: what an event costs the request, how fast one
worker drains deliveries, and the plan of the worker's query on the task queue table.

``python manage.py bench --only notify`` measures in a child process with a
scratch data folder (SQLite), no Hermes needed:

1. **Enqueueing.** The request that causes an event pays for the signal's
   receivers: notifications and webhooks each insert one task row. Measured
   as ``events.emit`` alone (median of 500), and as a whole request (a note
   with a mention, POSTed through Django's test client) with the receivers
   connected and disconnected, in alternating rounds: the difference is what
   notifying adds. The issue's bound: at most 2 ms.
2. **Draining.** 1,000 deliveries queued to a receiver on loopback, then one
   ``manage.py db_worker`` started: seconds until the last is delivered
   (bound: 60 s).
3. **Indexed.** ``EXPLAIN QUERY PLAN`` of the worker's "next ready task"
   query and of the recovery round's query, over the queue as the drain left it.
"""

from __future__ import annotations

import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DELIVERIES = 1000
EMITS = 500
ROUNDS = 7
REQUESTS = 20
NOTE_SESSION = "bench-note-session"
# A session as GET /api/sessions/{id} answers (the contract's captured sample's fields).
_SESSION = {
    "source": "api_server",
    "user_id": None,
    "model": "hermes-agent",
    "title": "Bench",
    "started_at": 1796212038.2,
    "ended_at": None,
    "end_reason": None,
    "message_count": 0,
    "tool_call_count": 0,
    "input_tokens": 0,
    "output_tokens": 0,
    "cache_read_tokens": 0,
    "cache_write_tokens": 0,
    "reasoning_tokens": 0,
    "estimated_cost_usd": None,
    "actual_cost_usd": None,
    "api_call_count": 0,
    "parent_session_id": None,
    "has_system_prompt": True,
    "has_model_config": False,
}


def run(stdout) -> None:
    with tempfile.TemporaryDirectory(prefix="hermes-bench-notify-") as scratch:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "hermes_ui.settings",
            "HERMES_UI_DATA_DIR": str(Path(scratch) / "ui"),
            # Answered in the child by a mock transport (the note view reads the session).
            "HERMES_API_URL": "http://hermes.bench",
            "HERMES_API_KEY": "bench-key",
            "HERMES_ENDPOINT_ID": "bench",
            "HERMES_INDEX_REFRESH_SECONDS": "0",
            "HERMES_UI_LOG_LEVEL": "WARNING",
            "HERMES_UI_WEBHOOK_ALLOW_HOSTS": "127.0.0.1",
        }
        child = subprocess.Popen(
            [sys.executable, "-m", "devtools.bench.notify"],
            env=env,
            cwd=REPO,
            stdout=subprocess.PIPE,
            text=True,
        )
        for line in child.stdout:
            stdout.write(line.rstrip("\n"))
        if child.wait() != 0:
            stdout.write(f"measurement process failed (exit {child.returncode})")


class _Receiver:
    def __init__(self):
        self.count = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.count += 1
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"


def _measure() -> None:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)

    def say(text: str) -> None:
        print(text, flush=True)

    import httpx

    from hermes_ui.hermes.client import use_transport

    session = {"object": "hermes.session", "session": {**_SESSION, "id": NOTE_SESSION}}
    with use_transport(httpx.MockTransport(lambda request: httpx.Response(200, json=session))):
        _enqueueing(say)
    _draining(say)


def _enqueueing(say) -> None:
    from django.contrib.auth import get_user_model
    from django.test import Client

    from hermes_ui.access.accounts import ensure_user
    from hermes_ui.notifications import receivers as mail_receivers
    from hermes_ui.platform import events
    from hermes_ui.webhooks import receivers as hook_receivers
    from hermes_ui.webhooks.models import Webhook

    for name in ("bench-admin", "bench-reviewer"):
        ensure_user(name, "admin" if name == "bench-admin" else "reviewer", "x" * 24)
    users = get_user_model().objects
    author, mentioned = users.get(username="bench-admin"), users.get(username="bench-reviewer")
    Webhook.objects.create(
        url="https://hooks.example.org/x", secret=secrets.token_hex(16), events=list(events.PUBLIC)
    )

    def emit() -> None:
        events.emit(events.REVIEW_MENTIONED, endpoint="bench", actor=author, users=[mentioned])
        events.emit(events.SESSION_TAGGED, endpoint="bench", actor=author, ids={"tag_id": 1})

    emit()  # warm: the rounds are scheduled once per process
    samples = []
    for _ in range(EMITS):
        started = time.perf_counter()
        emit()
        samples.append((time.perf_counter() - started) * 1000)
    say(
        f"events.emit with both receivers (one task row each), x2 events per sample: median "
        f"{statistics.median(samples) / 2:.3f} ms per event, p95 "
        f"{sorted(samples)[int(len(samples) * 0.95)] / 2:.3f} ms"
    )

    client = Client()
    client.force_login(author)
    from hermes_ui.web.links import session_url

    url = session_url("bench", NOTE_SESSION, "review_notes")

    def post_note() -> float:
        started = time.perf_counter()
        answer = client.post(url, {"body": "@bench-reviewer have a look"})
        assert answer.status_code < 500, answer.status_code
        return (time.perf_counter() - started) * 1000

    def connected(on: bool) -> None:
        if on:
            events.receivers()["notifications"] = mail_receivers.on_event
            events.receivers()["webhooks"] = hook_receivers.on_event
        else:
            events.receivers().pop("notifications", None)
            events.receivers().pop("webhooks", None)

    post_note()
    figures: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(ROUNDS):
        for on in (False, True):
            connected(on)
            figures[on].append(statistics.median(post_note() for _ in range(REQUESTS)))
    connected(True)
    off, on = statistics.median(figures[False]), statistics.median(figures[True])
    say(
        f"POST a note with a mention (status {client.post(url, {'body': 'x'}).status_code}), "
        f"median of {ROUNDS} rounds x {REQUESTS}: receivers off {off:.2f} ms, on {on:.2f} ms; "
        f"notifying adds {on - off:+.2f} ms (bound: 2 ms)"
    )


def _draining(say) -> None:
    from django.conf import settings
    from django.db import connection
    from django_tasks_db.models import DBTaskResult

    from hermes_ui.webhooks import outbox
    from hermes_ui.webhooks.models import Delivery, Webhook

    # What the first part queued is not this part's work: an empty queue, one webhook.
    DBTaskResult.objects.all().delete()
    Webhook.objects.all().delete()
    receiver = _Receiver()
    hook = Webhook.objects.create(url=receiver.url, secret=secrets.token_hex(16), events=[])
    started = time.perf_counter()
    for _ in range(DELIVERIES):
        outbox.ping(hook)
    say(f"queued {DELIVERIES:,} deliveries in {time.perf_counter() - started:.1f} s")
    env = {**os.environ, "HERMES_UI_DATA_DIR": str(settings.DATA_DIR)}
    worker = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "db_worker",
            "--queue-name=*",
            "--interval=0.05",
            "--no-startup-delay",
            "--no-reload",
            "--verbosity=0",
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    started = time.perf_counter()
    delivered = 0
    try:
        while time.perf_counter() - started < 300:
            delivered = Delivery.objects.filter(webhook=hook, state=Delivery.DELIVERED).count()
            if delivered >= DELIVERIES:
                break
            time.sleep(0.2)
    finally:
        took = time.perf_counter() - started
        worker.terminate()
        worker.wait(10)
    say(
        f"one worker drained {delivered:,} of {DELIVERIES:,} deliveries to a loopback receiver "
        f"({receiver.count:,} received) in {took:.1f} s ({delivered / took:.0f}/s; bound: 60 s)"
    )
    _plans(say, connection)


def _plans(say, connection) -> None:
    from datetime import timedelta

    from django.utils import timezone
    from django_tasks_db.models import DBTaskResult

    from hermes_ui.webhooks.models import Delivery

    total = DBTaskResult.objects.count()
    say(f"queue table: {total:,} rows ({DBTaskResult.objects.ready().count()} ready)")
    ready = DBTaskResult.objects.ready().filter(backend_name="default")
    say(f"worker's next-task query ({connection.vendor}):")
    for line in ready[:1].explain().splitlines():
        say(f"  {line}")
    say("recovery round's query (deliveries whose lease ran out):")
    stale = Delivery.objects.filter(
        state=Delivery.SENDING, lease_until__lt=timezone.now()
    ).order_by()
    for line in stale.explain().splitlines():
        say(f"  {line}")
    late = Delivery.objects.filter(
        state=Delivery.PENDING, next_attempt_at__lt=timezone.now() - timedelta(seconds=30)
    ).order_by()
    for line in late.explain().splitlines():
        say(f"  {line}")


if __name__ == "__main__":
    _measure()
