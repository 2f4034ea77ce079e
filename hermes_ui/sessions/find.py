"""Find in one transcript: which messages hold a text, and where the nth one is.

It runs on the transcript the session page already fetched (and cached), so
a 3,000-message transcript is searched on the server and only the chunk that
holds the current match is rendered. The text searched in each message is
the content index's (``hermes_ui.hermes.transcript.message_text``); matching is a
case-insensitive substring test.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hermes_ui.hermes.transcript import message_text

MAX_LISTED = 200  # match links listed under the box


@dataclass
class Finding:
    text: str
    matches: list = field(default_factory=list)  # message ids, in transcript order
    current: int = 0  # 1-based position of the match shown; 0 when there is none

    @property
    def count(self) -> int:
        return len(self.matches)

    @property
    def focus_id(self):
        return self.matches[self.current - 1] if self.current else None

    @property
    def previous(self) -> int | None:
        return (self.current - 2) % self.count + 1 if self.count > 1 else None

    @property
    def next(self) -> int | None:
        return self.current % self.count + 1 if self.count > 1 else None

    @property
    def listed(self) -> list[tuple[int, object]]:
        return list(enumerate(self.matches[:MAX_LISTED], 1))


def find(rows: list, text: str, hit: int | None) -> Finding:
    needle = text.casefold()
    matches = [
        row.get("id")
        for row in rows
        if isinstance(row, dict) and needle in message_text(row).casefold()
    ]
    current = min(max(hit or 1, 1), len(matches)) if matches else 0
    return Finding(text, matches, current)
