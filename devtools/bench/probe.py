"""Other clients of Hermes, for the scale bench: a transcript read every 50 ms and a chat
turn a second, in a process of their own.

The probe used to run as two threads inside the bench's child, beside the sync it
measures. A sync writing a page of 200 rows into the index holds the GIL for tens of
milliseconds at a time, and a probe thread waiting for it counted that wait as Hermes'
latency: the bench charged Hermes with the dashboard's own Python work. The CLI,
Telegram or another dashboard are other processes, so the probe is one too (started
with ``spawn``: the bench's child has Django and threads loaded, which ``fork`` would
copy). It still shares the machine's two cores with Hermes and the sync, as those
clients would.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
import threading
import time

import httpx

READ_EVERY = 0.05  # one transcript read every 50 ms
CHAT_EVERY = 1.0  # and a chat turn a second
CHAT_SESSION = "bench-probe-chat"
CHAT_TURNS_PER_SESSION = 20  # then the chat probe starts a new session: a turn's cost
# grows with its transcript


class Probe:
    """``start()`` a reading, ``stop()`` it: the p95 of each kind of call, and the counts."""

    def __init__(self, base_url: str, key: str, count: int):
        self.base_url, self.key, self.count = base_url, key, count
        self._context = multiprocessing.get_context("spawn")
        self._readings = 0
        self._process = None

    def start(self) -> None:
        self._readings += 1
        self._stop = self._context.Event()
        self._results = self._context.Queue()
        run = f"{os.getpid()}-{int(time.time())}-{self._readings}"
        self._process = self._context.Process(
            target=_main,
            args=(self.base_url, self.key, self.count, run, self._stop, self._results),
            daemon=True,
        )
        self._process.start()

    def stop(self) -> dict:
        self._stop.set()
        reads, chats, errors, first_error = self._results.get(timeout=300)
        self._process.join(30)
        return {
            "read_p95": p95(reads),
            "chat_p95": p95(chats),
            "reads": len(reads),
            "chats": len(chats),
            "errors": errors,
            "first_error": first_error,
        }


def p95(samples: list[float]) -> float:
    """Milliseconds, from samples in seconds."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)] * 1000


def _main(base_url: str, key: str, count: int, run: str, stop, results) -> None:
    http = httpx.Client(base_url=base_url, timeout=120, headers={"Authorization": f"Bearer {key}"})
    reads: list[float] = []
    chats: list[float] = []
    errors = [0]
    first_error: list[str] = []

    def failed(exc: Exception) -> None:
        errors[0] += 1
        if not first_error:
            first_error.append(f"{type(exc).__name__}: {str(exc)[:200]}")

    def read_loop() -> None:
        rng = random.Random(7)
        while not stop.is_set():
            sid = f"bench_{rng.randrange(count):05d}"
            started = time.perf_counter()
            try:
                http.get(f"/api/sessions/{sid}/messages").raise_for_status()
                reads.append(time.perf_counter() - started)
            except httpx.HTTPError as exc:
                failed(exc)
            stop.wait(max(0.0, READ_EVERY - (time.perf_counter() - started)))

    def chat_loop() -> None:
        turns, sessions = 0, 0
        session = None
        while not stop.is_set():
            try:
                if session is None or turns % CHAT_TURNS_PER_SESSION == 0:
                    sessions += 1
                    session = f"{CHAT_SESSION}-{run}-{sessions}"
                    # Hermes keeps titles unique: each probe session has its own.
                    title = f"Bench probe {run}-{sessions}"
                    answer = http.post("/api/sessions", json={"id": session, "title": title})
                    if answer.status_code not in (200, 201, 409):
                        answer.raise_for_status()
                turns += 1
                started = time.perf_counter()
                http.post(
                    f"/api/sessions/{session}/chat", json={"message": "ping"}
                ).raise_for_status()
                chats.append(time.perf_counter() - started)
            except httpx.HTTPError as exc:
                failed(exc)
                started = time.perf_counter()
            stop.wait(max(0.0, CHAT_EVERY - (time.perf_counter() - started)))

    threads = [threading.Thread(target=read_loop), threading.Thread(target=chat_loop)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results.put((reads, chats, errors[0], first_error[0] if first_error else ""))
