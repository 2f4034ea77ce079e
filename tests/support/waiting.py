"""Waiting for what proves a thing has happened, instead of sleeping a fixed time."""

import time


def until(condition, timeout: float, message: str, interval: float = 0.1):
    """Poll ``condition()`` until it returns something truthy and return that; fail
    with ``message`` after ``timeout`` seconds. Each look costs the processes it asks,
    and on a busy machine the waits are long: ten looks a second, not twenty."""
    deadline = time.monotonic() + timeout
    while not (result := condition()):
        assert time.monotonic() < deadline, message
        time.sleep(interval)
    return result
