"""A small incremental parser for the server-sent events Hermes writes.

Hermes frames each event as ``event: NAME`` / ``data: JSON`` and a blank
line, and writes ``: keepalive`` comments after 30 s without an event. The
parser is fed decoded lines and yields complete events; it never holds more
than one event in memory.
"""

import json
from dataclasses import dataclass, field
from typing import Any

KEEPALIVE = "keepalive"


@dataclass
class SseEvent:
    name: str
    data: dict[str, Any] = field(default_factory=dict)
    raw_data: str = ""

    @property
    def is_keepalive(self) -> bool:
        return self.name == KEEPALIVE


class SseParser:
    def __init__(self):
        self._name: str | None = None
        self._data: list[str] = []

    def feed_line(self, line: str) -> SseEvent | None:
        """Feed one line without its terminator; returns an event when one completes."""
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            return SseEvent(KEEPALIVE)
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._name = value
        elif name == "data":
            self._data.append(value)
        # "id:" and "retry:" are not used by Hermes; unknown fields are ignored
        # as the SSE specification requires.
        return None

    def flush(self) -> SseEvent | None:
        """An event left open when the stream ended without a blank line."""
        return self._dispatch()

    def _dispatch(self) -> SseEvent | None:
        if self._name is None and not self._data:
            return None
        raw = "\n".join(self._data)
        name = self._name or "message"
        self._name, self._data = None, []
        try:
            data = json.loads(raw) if raw else {}
        except ValueError:
            data = {}
        if not isinstance(data, dict):
            data = {"value": data}
        return SseEvent(name, data, raw)
