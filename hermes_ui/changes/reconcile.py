"""Say what actually happened after a change whose outcome is not simply "done".

Fork is not atomic at the provider: it ends the parent (``branched``),
creates the child, copies the active messages and only then validates the
title, so an error can come back after durable changes. A timeout, a
dropped connection, 429 or 5xx leave any mutation in doubt. In both cases
the dashboard reads the current state and reports, check by check, what is
true now and what is safe to do next. It never repeats the change itself.

Intent comes from the recorded (redacted) evidence: ids as they are, the
requested title only as a fingerprint, which is enough to tell whether the
title Hermes holds now is the one that was asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hermes_ui.audit.redact import describe_text
from hermes_ui.digests import json_digest
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient
from hermes_ui.hermes.pages import list_rows
from hermes_ui.hermes.session import Session

YES, NO, PARTLY, UNKNOWN = "yes", "no", "partly", "unknown"
# Clocks of the dashboard and Hermes may differ a little; a row that started
# this long before the attempt still counts as "started around it".
CLOCK_SKEW = 30.0
SCAN_LIMIT = 2000  # rows of the list read when looking for an unnamed result (200 a page)
# What fork copies from each message; ids and session ids differ by design.
_COPIED = (
    "role",
    "content",
    "tool_call_id",
    "tool_calls",
    "tool_name",
    "finish_reason",
    "reasoning",
    "reasoning_content",
    "timestamp",
    "token_count",
)


@dataclass
class Check:
    label: str
    state: str
    detail: str


@dataclass
class Report:
    capability: str
    checks: list[Check] = field(default_factory=list)
    verdict: str = ""
    next_steps: list[str] = field(default_factory=list)
    parent: Session | None = None
    child: Session | None = None
    session: Session | None = None
    candidates: list[Session] = field(default_factory=list)
    read_errors: list[e.HermesError] = field(default_factory=list)
    child_created: bool = False

    def add(self, label: str, state: str, detail: str) -> None:
        self.checks.append(Check(label, state, detail))

    @property
    def complete(self) -> bool:
        return bool(self.checks) and all(c.state == YES for c in self.checks)


def messages_digest(rows: list[dict]) -> str:
    return json_digest([{k: row.get(k) for k in _COPIED} for row in rows])


def same_text(current: str | None, fingerprint) -> bool:
    """Whether ``current`` is the text whose redacted fingerprint was recorded."""
    return isinstance(fingerprint, dict) and describe_text(current) == fingerprint


def children_of(
    client: HermesClient, parent_id: str, *, started_after: float | None = None
) -> list[Session]:
    """Sessions whose parent is ``parent_id``, from the administrative list (children included)."""
    return [
        row
        for row in _scan(client, include_children=True)
        if row.parent_id == parent_id
        and (started_after is None or (row.started_at or 0) >= started_after)
    ]


def _scan(
    client: HermesClient, *, include_children: bool = False, source: str | None = None
) -> list[Session]:
    rows = list_rows(
        client, include_children=include_children, source=source, max_pages=SCAN_LIMIT // 200
    )
    return [Session.from_row(row) for row in rows]


def _read(report: Report, read, *args):
    """A read whose failure is reported, not raised: ``None`` when missing, else ``UNKNOWN``."""
    try:
        return read(*args)
    except e.NotFound:
        return None
    except e.HermesError as error:
        report.read_errors.append(error)
        return UNKNOWN


# -- fork -------------------------------------------------------------------------


def reconcile_fork(client: HermesClient, parent_id: str, evidence: dict) -> Report:
    report = Report("session_fork")
    parent = _read(report, client.get_session, parent_id)
    report.parent = parent if isinstance(parent, Session) else None
    child = _find_child(report, client, parent_id, evidence)
    _check_parent(report, parent, evidence)
    _check_child(report, child, parent_id, evidence)
    if report.child is not None:
        _check_messages(report, client, evidence)
        _check_title(report, evidence)
    _fork_advice(report, evidence)
    return report


def _find_child(report: Report, client, parent_id: str, evidence: dict):
    child_id = evidence.get("child_id")
    if child_id:
        child = _read(report, client.get_session, child_id)
    else:
        after = (evidence.get("attempted_at") or 0) - CLOCK_SKEW
        try:
            report.candidates = children_of(client, parent_id, started_after=after)
        except e.HermesError as error:
            report.read_errors.append(error)
            return UNKNOWN
        child = report.candidates[0] if len(report.candidates) == 1 else None
    if (
        isinstance(child, Session)
        and child.parent_id == parent_id
        and not _preexisting(child, evidence)
    ):
        report.child = child
        report.child_created = True
    return child


def _preexisting(row: Session, evidence: dict) -> bool:
    """A row that existed before the attempt: Hermes said so, or it started well before."""
    if evidence.get("code") == "session_exists":
        return True
    return (row.started_at or 0) < (evidence.get("attempted_at") or 0) - CLOCK_SKEW


def _check_parent(report: Report, parent, evidence: dict) -> None:
    label = "Parent ended"
    if parent is UNKNOWN:
        report.add(label, UNKNOWN, "The parent could not be read.")
    elif parent is None:
        report.add(label, UNKNOWN, "The parent no longer exists (it was deleted).")
    elif not parent.closed:
        report.add(label, NO, "The parent is still open: the fork did not get as far as ending it.")
    elif evidence.get("parent_open") is False:
        reason = evidence.get("parent_end_reason") or "no reason"
        report.add(
            label,
            YES,
            f"The parent was already closed ({reason}) before the fork; "
            "the first close reason stays.",
        )
    else:
        reason = parent.end_reason or "no reason"
        report.add(label, YES, f"The parent is now closed with reason \u201c{reason}\u201d.")


def _check_child(report: Report, child, parent_id: str, evidence: dict) -> None:
    label = "Child created"
    if child is UNKNOWN:
        report.add(label, UNKNOWN, "The intended child could not be looked up.")
    elif report.child is not None:
        how = "" if evidence.get("child_id") else " (found among the parent's children)"
        report.add(label, YES, f"Child {report.child.id} exists with this parent{how}.")
    elif isinstance(child, Session) and child.parent_id == parent_id:
        report.add(
            label,
            NO,
            f"{child.id} is an earlier fork of this parent: that id was "
            "already taken, so this attempt created nothing.",
        )
    elif isinstance(child, Session):
        report.add(
            label,
            NO,
            f"{child.id} exists but is not a fork of this parent: that id was already taken.",
        )
    elif report.candidates:
        report.add(
            label,
            UNKNOWN,
            f"{len(report.candidates)} children of this parent started "
            "around the attempt; see which one is yours below.",
        )
    else:
        report.add(label, NO, "No child of this parent exists from this attempt.")


def _check_messages(report: Report, client, evidence: dict) -> None:
    """Compare the child's messages with what the parent held just before the fork.

    The parent's own rows cannot be read back afterwards: once a child with
    messages exists, Hermes resolves the parent's ``/messages`` to that
    child (API forks carry no branch marker), as it does for a compressed
    root. So the fork view records the count and a digest beforehand.
    """
    label = "Messages copied"
    child_id = report.child.id
    rows = _read(report, client.get_messages, child_id)
    if not isinstance(rows, dict) or rows["session_id"] != child_id:
        report.add(label, UNKNOWN, "The child's own messages could not be read.")
        return
    copied = rows["data"]
    expected = evidence.get("parent_message_count")
    if expected is None:
        expected = report.parent.message_count if report.parent else None
    before = evidence.get("digest")
    if before and messages_digest(copied) == before:
        report.add(label, YES, f"All {len(copied)} active messages were copied unchanged.")
    elif not copied and expected:
        report.add(label, NO, f"The child has no messages; the parent had {expected}.")
    elif before:
        report.add(
            label,
            PARTLY,
            f"The child's {len(copied)} messages differ from the parent's "
            f"{expected} at the time of the fork.",
        )
    elif expected is not None and len(copied) == expected:
        report.add(
            label,
            YES,
            f"The child has all {expected} messages of the parent row (counted "
            "only: the parent's own rows were not readable).",
        )
    else:
        report.add(
            label,
            UNKNOWN,
            f"The child has {len(copied)} messages; the parent row counted {expected}.",
        )


def _check_title(report: Report, evidence: dict) -> None:
    label = "Title set"
    asked, now = evidence.get("title") or {"present": False}, report.child.title
    if not asked.get("present"):
        state = YES if now else NO
        report.add(
            label,
            state,
            "Hermes generated the child's title."
            if now
            else "The child has no title: Hermes did not get to set one.",
        )
    elif same_text(now, asked):
        report.add(label, YES, "The child has the title you asked for.")
    elif now is None:
        report.add(
            label,
            NO,
            "The child has no title: Hermes refused the one you asked for "
            "after creating the child.",
        )
    else:
        report.add(label, NO, "The child has a different title from the one you asked for.")


def _fork_advice(report: Report, evidence: dict) -> None:
    states = {c.label: c.state for c in report.checks}
    steps = report.next_steps
    if report.read_errors or UNKNOWN in states.values():
        report.verdict = "Not everything could be established."
        steps.append(
            "Check again once Hermes answers; do not fork again until you know "
            "whether a child exists."
        )
    if report.child_created and report.complete:
        report.verdict = report.verdict or "The fork completed."
        steps.append("Nothing to redo: open the child and carry on.")
    elif report.child_created:
        report.verdict = report.verdict or "The fork happened only in part."
        if states.get("Messages copied") == YES and states.get("Title set") == NO:
            steps.append(
                "The child is a complete copy without the title: rename the child "
                "to a unique title instead of forking again (another fork would "
                "make a second child)."
            )
        else:
            steps.append(
                "The child is not a faithful copy. Do not rely on it: request its "
                "deletion, then fork again from the parent with a fresh form."
            )
    elif states.get("Child created") == NO:
        report.verdict = report.verdict or "No child was created."
        if states.get("Parent ended") == YES and evidence.get("parent_open") is not False:
            steps.append(
                "The parent was closed as branched although no child exists; "
                "nothing reopens a session, and chat on it still works."
            )
        steps.append(
            "It is safe to fork again with a fresh form (choose another child id "
            "if that id was taken)."
        )


# -- patch and create ---------------------------------------------------------------


def check_patch(client: HermesClient, session_id: str, evidence: dict) -> Report:
    report = Report("session_patch")
    row = _read(report, client.get_session, session_id)
    if not isinstance(row, Session):
        report.add(
            "Session readable",
            UNKNOWN if row is UNKNOWN else NO,
            "The session could not be read." if row is UNKNOWN else "The session no longer exists.",
        )
        report.verdict = "What happened cannot be established from here."
        report.next_steps.append("Check again once Hermes answers.")
        return report
    report.session = row
    if evidence.get("op") == "close":
        asked, now = evidence.get("end_reason"), row.end_reason
        if now == asked:
            report.add("Closed", YES, f"The session is closed with reason \u201c{now}\u201d.")
        elif row.closed:
            report.add(
                "Closed",
                NO,
                f"The session is closed with another reason "
                f"(\u201c{now}\u201d); the first reason wins.",
            )
        else:
            report.add("Closed", NO, "The session is still open.")
    elif same_text(row.title, evidence.get("title")):
        report.add("Title", YES, "The session has the title you asked for.")
    else:
        report.add("Title", NO, "The session does not have the title you asked for.")
    _simple_advice(report, "The change is in place.", "The change did not take effect.")
    return report


def check_create(client: HermesClient, evidence: dict) -> Report:
    report = Report("session_create")
    requested = evidence.get("requested_id")
    after = (evidence.get("attempted_at") or 0) - CLOCK_SKEW
    if requested:
        row = _read(report, client.get_session, requested)
    else:
        try:
            found = [
                r
                for r in _scan(client, source="api_server")
                if (r.started_at or 0) >= after and same_text(r.title, evidence.get("title"))
            ]
        except e.HermesError as error:
            report.read_errors.append(error)
            found = UNKNOWN
        report.candidates = found if isinstance(found, list) else []
        row = found[0] if isinstance(found, list) and len(found) == 1 else found or None
    if row is UNKNOWN or isinstance(row, list):
        report.add("Session created", UNKNOWN, "It could not be established; see below.")
    elif row is None:
        report.add("Session created", NO, "No session from this attempt exists.")
    elif (row.started_at or 0) < after:
        report.add("Session created", NO, f"{row.id} existed before the attempt.")
    else:
        report.session = row
        report.add("Session created", YES, f"Session {row.id} exists.")
        report.add(
            "Title",
            YES if same_text(row.title, evidence.get("title")) else NO,
            "Compared with the title you asked for.",
        )
        asked_prompt = bool((evidence.get("system_prompt") or {}).get("present"))
        report.add(
            "System prompt",
            YES if row.has_system_prompt == asked_prompt else NO,
            "Stored." if row.has_system_prompt else "None stored.",
        )
    _simple_advice(report, "The session was created.", "The session was not created.")
    return report


def _simple_advice(report: Report, done: str, not_done: str) -> None:
    states = [c.state for c in report.checks]
    if report.read_errors or UNKNOWN in states:
        report.verdict = "Not everything could be established."
        report.next_steps.append(
            "Check again once Hermes answers; do not repeat the change until you know."
        )
    elif all(s == YES for s in states):
        report.verdict = done
        report.next_steps.append("Nothing to redo.")
    else:
        report.verdict = not_done if states[0] == NO else "It happened only in part."
        report.next_steps.append(
            "If you still want it, make the change again from a fresh "
            "form; nothing will be repeated for you."
        )
