"""Say what actually happened after a change whose outcome is not simply "done"."""

from __future__ import annotations

from dataclasses import dataclass, field

from hermes_ui.audit.redact import describe_text
from hermes_ui.changes import flags
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient
from hermes_ui.hermes.pages import list_rows
from hermes_ui.hermes.session import Session
from hermes_ui.platform.digests import json_digest

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
    # What happened after the change, read now: never part of the verdict.
    continued: int = 0  # messages added to a fork's child since the fork
    since: list[str] = field(default_factory=list)

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
    """Compare the child's messages, as Hermes returned them at the fork, with what the
    parent held just before it; what was added later is growth, not a failure.

    The parent's own rows cannot be read back afterwards: once a child with
    messages exists, Hermes resolves the parent's ``/messages`` to that
    child (API forks carry no branch marker), as it does for a compressed
    root. So the fork view records the count and a digest beforehand, and
    the child's count and digest just after.
    """
    label = "Messages copied"
    child_id = report.child.id  # type: ignore[union-attr]
    rows = _read(report, client.get_messages, child_id)
    now = rows["data"] if isinstance(rows, dict) and rows["session_id"] == child_id else None
    expected = evidence.get("parent_message_count")
    if expected is None:
        expected = report.parent.message_count if report.parent else None
    before = evidence.get("digest")
    at_fork = evidence.get("child_digest")
    if at_fork is not None:
        count = evidence.get("child_message_count") or 0
        report.add(label, *_copy_verdict(count, at_fork, expected, before, recorded=True))
        _growth(report, now, count, at_fork)
        return
    if now is None:
        report.add(label, UNKNOWN, "The child's own messages could not be read.")
        return
    # Nothing recorded at the fork (its answer was lost, or an older release made
    # it): the copy is the child's first messages, and anything after them is later.
    if before and expected and len(now) > expected and messages_digest(now[:expected]) == before:
        report.add(label, *_copy_verdict(expected, before, expected, before, recorded=False))
        report.continued = len(now) - expected
        return
    report.add(label, *_copy_verdict(len(now), messages_digest(now), expected, before, False))


def _copy_verdict(count: int, digest: str, expected, before, recorded: bool) -> tuple[str, str]:
    when = " when Hermes answered the fork" if recorded else ""
    if before and digest == before:
        return YES, f"All {count} active messages were copied unchanged{when}."
    if not count and expected:
        return NO, f"The child had no messages{when}; the parent had {expected}."
    if before:
        return (
            PARTLY,
            f"The child's {count} messages{when} differ from the parent's "
            f"{expected} at the time of the fork.",
        )
    if expected is not None and count == expected:
        return (
            YES,
            f"The child had all {expected} messages of the parent row{when} (counted "
            "only: the parent's own rows were not readable).",
        )
    return UNKNOWN, f"The child has {count} messages{when}; the parent row counted {expected}."


def _growth(report: Report, now, count: int, at_fork: str) -> None:
    """What the child did after the fork: more messages, or a rewritten transcript."""
    if now is None:
        return  # the read error is listed; the verdict stands on the record
    if len(now) >= count and messages_digest(now[:count]) == at_fork:
        report.continued = len(now) - count
    else:
        report.since.append(
            f"The child's transcript has changed since the fork (it now has {len(now)} "
            "active messages, and they no longer start with the copied ones: compressed or "
            "rewritten since)."
        )


def _check_title(report: Report, evidence: dict) -> None:
    """The title Hermes gave the child when it answered the fork (recorded), else now."""
    label = "Title set"
    asked = evidence.get("title") or {"present": False}
    now = describe_text(report.child.title)  # type: ignore[union-attr]
    held = evidence.get("child_title")
    if isinstance(held, dict):
        if held != now:
            report.since.append("The child has been renamed since the fork.")
    else:
        held = now
    if not asked.get("present"):
        if held.get("present"):
            report.add(label, YES, "Hermes generated the child's title.")
        else:
            report.add(label, NO, "The child has no title: Hermes did not get to set one.")
    elif held == describe_text(asked):
        report.add(label, YES, "The child has the title you asked for.")
    elif not held.get("present"):
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
    if "applied" in evidence:  # Hermes answered the change: its answer decides
        return _patch_as_answered(report, row, evidence)
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
    if evidence.get("op") in flags.OPS:
        _check_flag(report, row.raw, evidence)  # type: ignore[arg-type]
    elif evidence.get("op") == "close":
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


def _check_flag(report: Report, row: dict, evidence: dict) -> None:
    """Archived or pinned as asked, read from the session now (a newer Hermes reports it)."""
    op = flags.OPS[evidence["op"]]
    now = row.get(op.field)
    if now is op.value:
        report.add(op.label, YES, f"Hermes reports {op.field}: {str(now).lower()}, as asked.")
    elif isinstance(now, bool):
        report.add(op.label, NO, f"Hermes reports {op.field}: {str(now).lower()}.")
    else:
        report.add(op.label, UNKNOWN, f"This Hermes does not report {op.field}.")


def _patch_as_answered(report: Report, row, evidence: dict) -> Report:
    if evidence.get("op") in flags.OPS:
        op = flags.OPS[evidence["op"]]
        state = YES if evidence["applied"] else NO
        word = "as asked" if evidence["applied"] else "not as asked"
        report.add(op.label, state, f"Hermes returned the session with {op.field} {word}.")
    elif evidence.get("op") == "close":
        kept = evidence.get("end_reason_kept")
        if evidence["applied"]:
            report.add("Closed", YES, f"Hermes closed the session with reason \u201c{kept}\u201d.")
        else:
            report.add(
                "Closed",
                NO,
                f"Hermes kept the session's earlier reason (\u201c{kept}\u201d); the first "
                "reason wins.",
            )
    elif evidence["applied"]:
        report.add("Title", YES, "Hermes returned the session with the title you asked for.")
        if isinstance(row, Session) and not same_text(row.title, evidence.get("title")):
            report.since.append("The session has been renamed since.")
    else:
        report.add("Title", NO, "Hermes returned the session with another title.")
    _since_read(report, row, "The session")
    _simple_advice(report, "The change is in place.", "The change did not take effect.")
    return report


def _since_read(report: Report, row, what: str) -> None:
    """After a change judged by its recorded answer, the read of now only adds news."""
    if row is None:
        report.since.append(f"{what} has been deleted since.")
    elif row is UNKNOWN:
        report.read_errors.clear()
        report.since.append(f"{what} could not be read just now; later changes are not shown.")


def check_create(client: HermesClient, evidence: dict) -> Report:
    report = Report("session_create")
    if "title_applied" in evidence:  # Hermes answered the create: its answer decides
        return _create_as_answered(report, client, evidence)
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
            found = UNKNOWN  # type: ignore[assignment]
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


def _create_as_answered(report: Report, client, evidence: dict) -> Report:
    session_id = evidence.get("session_id")
    report.add("Session created", YES, f"Hermes created session {session_id}.")
    report.add(
        "Title",
        YES if evidence["title_applied"] else NO,
        "Hermes stored the title you asked for."
        if evidence["title_applied"]
        else "Hermes stored another title than the one you asked for.",
    )
    asked_prompt = bool((evidence.get("system_prompt") or {}).get("present"))
    stored = bool(evidence.get("has_system_prompt"))
    report.add(
        "System prompt",
        YES if stored == asked_prompt else NO,
        "Stored." if stored else "None stored.",
    )
    row = _read(report, client.get_session, session_id)
    if isinstance(row, Session):
        report.session = row
        if evidence["title_applied"] and not same_text(row.title, evidence.get("title")):
            report.since.append("The session has been renamed since.")
    _since_read(report, row, "The session")
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
