"""Following a background job from the response that started it, and a gate for Hermes."""

from __future__ import annotations

import re
import threading

import httpx

from hermes_ui.background.jobs.models import Job
from tests.support.waiting import until

_JOB_URL = re.compile(r"^/jobs/(\d+)/$")


def job_of(answer) -> Job:
    """The job a POST started: it answered at once with a 303 to the progress page."""
    assert answer.status_code == 303, (answer.status_code, answer.content.decode()[:2000])
    found = _JOB_URL.match(answer["Location"])
    assert found, answer["Location"]
    return Job.objects.get(pk=int(found.group(1)))


def finished(job: Job, timeout: float = 60.0) -> Job:
    """The job once it is no longer queued or running."""
    return until(
        lambda: (fresh := Job.objects.get(pk=job.pk)).state not in ("queued", "running") and fresh,
        timeout,
        f"job {job.pk} did not finish in {timeout} s",
    )


def follow(client, answer, timeout: float = 60.0):
    """Wait for the job ``answer`` started, then GET its progress page (not following on)."""
    job = finished(job_of(answer), timeout)
    return client.get(f"/jobs/{job.pk}/")


class Gate(httpx.BaseTransport):
    """Forwards every request to the real peer; those ``held`` waits for a permit first.

    Slowness on demand, without sleeping: the test releases the requests it
    wants to complete (``allow``), and ``sent`` says what reached Hermes.
    """

    def __init__(self, held):
        self.held = held
        self.permits = threading.Semaphore(0)
        self.waiting = threading.Event()  # a held request is waiting for its permit
        self.sent: list[tuple[str, str]] = []
        self.real = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if self.held(request):
            self.waiting.set()
            assert self.permits.acquire(timeout=60), "the test never let this request through"
        self.sent.append((request.method, request.url.path))
        return self.real.handle_request(request)

    def allow(self, n: int = 1) -> None:
        self.permits.release(n)

    def open(self) -> None:
        self.held = lambda request: False
        self.permits.release(1000)

    def count(self, method: str) -> int:
        return sum(1 for m, _ in self.sent if m == method)
