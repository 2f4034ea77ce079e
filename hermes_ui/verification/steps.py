"""The contract's integration check ("Verify an integration"), step by step."""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import Callable

from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from hermes_ui.audit import trail
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import Outcome
from hermes_ui.changes import apply
from hermes_ui.deletion import confirm_gone, execute
from hermes_ui.deletion import request as deletion_request
from hermes_ui.deletion.models import DeletionRequest, Status
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient
from hermes_ui.hermes.contract import missing_operations
from hermes_ui.hermes.pages import list_pages
from hermes_ui.index.forks import remember_fork
from hermes_ui.platform.digests import json_digest
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.verification.models import Cleanup, Verdict, VerificationReport

NAMES = {
    1: "Discover the capabilities",
    2: "Check the credential",
    3: "Create a session, get it, find it in a filtered list",
    4: "Patch its title; an unknown field is rejected",
    5: "One harmless chat turn; effective id and active messages",
    6: "Fork it; parent end state, child parent id, copied transcript",
    7: "Delete through four-eyes approval and a fresh key",
    8: "Record ids, keys, status and evidence, never content",
}
PROMPT = "This is an integration check. Reply with the single word OK."
REASON = "Integration check (manage.py verify_endpoint): delete the verification session."
BRANCH_REASON = "Integration check (manage.py verify_endpoint): delete the verification branch."
MAX_LIST_PAGES = 50
ARTIFACTS = "not removed by this route and not visible through the API"


class Failed(Exception):
    """A step failed: the run stops there, and the report says which and why."""


class Run:
    def __init__(self, report: VerificationReport, endpoint: Endpoint, user, say: Callable):
        self.report, self.endpoint, self.user, self.say = report, endpoint, user, say
        self.client = client_for(endpoint)
        self.secrets: list[str] = [endpoint.api_key]  # must never appear in the report

    def record(self, n: int, ok: bool | None, detail: str = "", **evidence) -> None:
        steps = [s for s in self.report.steps if s["n"] != n]
        steps.append({"n": n, "name": NAMES[n], "ok": ok, "detail": detail, "evidence": evidence})
        self.report.steps = sorted(steps, key=lambda s: s["n"])
        self.report.save()
        word = {True: "PASS", False: "FAIL", None: "WAIT"}[ok]
        self.say(f"{n}. {word}  {NAMES[n]}" + (f" — {detail}" if detail else ""))
        if ok is False:
            raise Failed(detail)

    def check(self, n: int, conditions: dict[str, bool], **evidence) -> None:
        failed = [what for what, held in conditions.items() if not held]
        self.record(n, not failed, "; ".join(failed) and "not: " + "; ".join(failed), **evidence)

    def note(self, text: str) -> None:
        """A line about the clean-up (not one of the contract's numbered steps)."""
        self.say(f"Clean-up: {text}")

    @property
    def finish_command(self) -> str:
        return f"manage.py verify_endpoint {self.endpoint.id} --user <admin> --yes --finish"


def begin(endpoint: Endpoint, user, say: Callable) -> VerificationReport:
    report = VerificationReport.objects.create(
        **endpoint.scope(),
        base_url=endpoint.public_url,
        username=user.get_username(),
        started_at=timezone.now(),
    )
    run = Run(report, endpoint, user, say)
    try:
        _steps_1_to_7(run)
        _step_8(run)
    except Failed:
        _finish(report, Verdict.FAILED)
    except HermesError as error:
        _failed_unexpectedly(run, error)
    finally:
        if report.verdict != Verdict.AWAITING:
            # Whatever stopped the run, what it created gets its deletion filed.
            clean_up(run)
    return report


def _failed_unexpectedly(run: Run, error: HermesError) -> None:
    n = len([s for s in run.report.steps if s["ok"] is not None]) + 1
    with contextlib.suppress(Failed):
        run.record(
            min(n, 8), False, f"Hermes failed: {error.code}", code=error.code, status=error.status
        )
    _finish(run.report, Verdict.FAILED)


def _finish(report: VerificationReport, verdict: str) -> None:
    report.verdict = verdict
    report.finished_at = timezone.now() if verdict != Verdict.AWAITING else None
    report.save()


def _steps_1_to_7(run: Run) -> None:
    _step_1(run)
    _step_2(run)
    sid = _step_3(run)
    _step_4(run, sid)
    effective = _step_5(run, sid)
    child = _step_6(run, sid, effective)
    _step_7(run, sid, child)
    _finish(run.report, Verdict.AWAITING)


def _title(sid: str) -> str:
    return f"Verification {sid}"


def _step_1(run: Run) -> None:
    """Capabilities: every one of the contract's nine operations is reported."""
    client = run.client
    health = client.health()
    run.report.hermes_version = str(health.get("version") or "")[:60]
    caps = client.capabilities()
    missing = missing_operations(caps["endpoints"])
    features = caps["features"]
    run.check(
        1,
        {"all nine session operations reported": not missing},
        version=run.report.hermes_version,
        missing=missing,
        session_features={
            k: v for k, v in features.items() if k.startswith("session_") and isinstance(v, bool)
        },
    )


def _refusal(endpoint: Endpoint) -> tuple[int, str] | None:
    """(status, code) of a one-row list on ``endpoint``, or None when it answered."""
    client = HermesClient(endpoint, read_retries=0)
    try:
        client.list_sessions(limit=1)
        return None
    except HermesError as error:
        return (error.status, error.code)  # type: ignore[return-value]
    finally:
        client.close()


def _step_2(run: Run) -> None:
    """The credential: the configured key is accepted (step 1 used it), a wrong one gets 401.

    For an endpoint that names a profile, also that the server serves profiles:
    a Hermes without ``gateway.multiplex_profiles`` ignores the prefix and
    answers from its default profile, which an unknown profile name reveals.
    """
    ep = run.endpoint
    refused = _refusal(Endpoint(ep.id, ep.base_url, "wrong-" + secrets.token_hex(12)))
    conditions = {
        "the configured key is accepted": True,
        "a wrong key is refused with 401": bool(refused) and refused[0] == 401,  # type: ignore[index]
    }
    extra = {}
    if ep.profile:
        sibling = ep.base_url.rstrip("/")[: -len(ep.profile)] + "zz-" + secrets.token_hex(4)
        unknown = _refusal(Endpoint(ep.id, sibling, ep.api_key))
        conditions[f"the server serves profile {ep.profile} on its own"] = (
            bool(unknown) and unknown[0] == 404  # type: ignore[index]
        )
        extra = {"profile": ep.profile, "unknown_profile_status": unknown[0] if unknown else 200}
    run.check(
        2,
        conditions,
        endpoint=ep.id,
        endpoint_fp=ep.fingerprint,
        base_url=ep.public_url,
        wrong_key_status=refused[0] if refused else 200,
        wrong_key_code=refused[1] if refused else "",
        **extra,
    )


def _step_3(run: Run) -> str:
    """Create a session, read it back, find it in the ``api_server`` list. Returns its id."""
    client, ep = run.client, run.endpoint
    sid = f"verify-{secrets.token_hex(6)}"
    title = _title(sid)
    run.secrets += [title, PROMPT]
    run.report.session_id = sid
    # From here on the session may exist (a create can fail after Hermes made it).
    run.report.cleanup = Cleanup.PENDING
    run.report.save()
    made = apply.attempt(
        apply.CREATE,
        ep,
        run.user,
        form_key=mint_key(),
        inputs={"session_id": sid, "title": title},
        session_id=sid,
        call=lambda key, ev: client.create_session(
            idempotency_key=key, session_id=sid, title=title
        ),
    )
    got = client.get_session(sid) if made.result.ok else None
    offset = _find_in_list(client, sid) if got else None
    run.check(
        3,
        {
            "create succeeded": made.result.ok,
            "get returns it": bool(got) and got.id == sid,  # type: ignore[union-attr]
            "the api_server list has it": offset is not None,
        },
        session_id=sid,
        idempotency_key=made.result.key,
        event_id=made.result.event_id,
        code=made.result.error_code,
        list_offset=offset,
    )
    return sid


def _step_4(run: Run, sid: str) -> None:
    """Rename it through ``changes.apply``; a PATCH with an unknown field is rejected."""
    client, ep = run.client, run.endpoint
    renamed = f"{_title(sid)} renamed"
    run.secrets.append(renamed)
    patched = apply.attempt(
        apply.PATCH,
        ep,
        run.user,
        form_key=mint_key(),
        inputs={"op": "rename", "title": renamed},
        session_id=sid,
        call=lambda key, ev: client.patch_session(sid, idempotency_key=key, title=renamed),
    )
    unknown_key = mint_key()
    try:
        client.patch_unknown_field(sid, idempotency_key=unknown_key)
        unknown = (200, "")
    except HermesError as error:
        unknown = (error.status, error.code)  # type: ignore[assignment]
    after = client.get_session(sid)
    run.check(
        4,
        {
            "patch succeeded": patched.result.ok,
            "the new title reads back": after.title == renamed,
            "an unknown field is rejected (unsupported_session_field)": unknown
            == (400, "unsupported_session_field"),
        },
        idempotency_key=patched.result.key,
        event_id=patched.result.event_id,
        unknown_field_key=unknown_key,
        unknown_field_status=unknown[0],
        unknown_field_code=unknown[1],
    )


def _step_5(run: Run, sid: str) -> str:
    """One harmless chat turn. Returns the effective session id Hermes answered with."""
    client, ep = run.client, run.endpoint
    answer = client.chat(sid, message=PROMPT)
    effective = str(answer.get("session_id") or "")
    content = (answer.get("message") or {}).get("content")
    if isinstance(content, str) and content.strip():
        run.secrets.append(content)
    messages = client.get_messages(effective or sid)
    roles = [m.get("role") for m in messages["data"]]
    trail.record(
        run.user,
        capability="session_chat",
        endpoint=ep.id,
        outcome=Outcome.SUCCESS,
        session_id=sid,
        evidence={"effective_session_id": effective, "active_message_count": len(roles)},
    )
    run.check(
        5,
        {
            "the effective session id is returned": bool(effective),
            "messages resolve to the effective id": messages["session_id"] == effective,
            "the turn is in the active messages": roles[-2:] == ["user", "assistant"],
        },
        effective_session_id=effective,
        active_message_count=len(roles),
        roles=roles,
        usage=answer.get("usage") or {},
    )
    return effective


def _step_6(run: Run, sid: str, effective: str) -> str:
    """Fork the session; check the parent's end, the child's parent and the copy. Returns
    the child's id."""
    client, ep = run.client, run.endpoint
    before = client.get_messages(effective)
    child, child_title = f"{sid}-branch", f"Verification branch {sid}"
    run.secrets.append(child_title)
    # Recorded before the fork: a fork can fail after Hermes made the child.
    run.report.child_id = child
    run.report.save()
    forked = apply.attempt(
        apply.FORK,
        ep,
        run.user,
        form_key=mint_key(),
        inputs={"child_id": child, "title": child_title},
        session_id=sid,
        call=lambda key, ev: client.fork_session(
            sid, idempotency_key=key, child_id=child, title=child_title
        ),
    )
    if forked.result.ok:
        remember_fork(ep, sid, child, run.user)
    parent = client.get_session(sid)
    kid = client.get_session(child) if forked.result.ok else None
    copied = client.get_messages(child) if kid else {"data": []}
    run.check(
        6,
        {
            "fork succeeded": forked.result.ok,
            "the parent is ended 'branched'": parent.end_reason == "branched",
            "the child's parent is the session": bool(kid) and kid.parent_id == sid,  # type: ignore[union-attr]
            "the active transcript was copied": _transcript_digest(copied["data"])
            == _transcript_digest(before["data"]),
        },
        child_id=child,
        idempotency_key=forked.result.key,
        event_id=forked.result.event_id,
        parent_end_reason=parent.end_reason or "",
        copied_messages=len(copied["data"]),
        source_messages=len(before["data"]),
        digest=_transcript_digest(before["data"]),
    )
    return child


def _step_7(run: Run, sid: str, child: str) -> None:
    """File the session's deletion through the four-eyes workflow; ``finish`` executes it."""
    ep = run.endpoint
    case, _ = deletion_request.create(ep, sid, run.user, REASON)
    run.report.deletion = case
    url = reverse("deletion_detail", kwargs={"pk": case.pk})
    if child not in case.survivor_ids:
        run.record(
            7,
            False,
            "the request does not list the branch as a survivor",
            request_id=case.pk,
            survivors=case.survivor_ids,
        )
    run.record(
        7,
        None,
        f"deletion request #{case.pk} waits for another admin: {url} "
        f"— then run {run.finish_command}",
        request_id=case.pk,
        case_url=url,
        survivors=case.survivor_ids,
        cascade=case.cascade_ids,
    )


def _find_in_list(client: HermesClient, session_id: str) -> int | None:
    """The offset of the page of the ``api_server``-filtered list that holds the session."""
    pages = list_pages(
        client, include_children=False, source="api_server", max_pages=MAX_LIST_PAGES
    )
    for page in pages:
        if any(row["id"] == session_id for row in page.rows):
            return page.offset
    return None


def _transcript_digest(messages: list) -> str:
    """Equal iff the role and content sequence is equal (message ids differ in a copy)."""
    return json_digest([[m.get("role"), m.get("content")] for m in messages], 16)


def _step_8(run: Run) -> None:
    text = json.dumps(run.report.steps, ensure_ascii=False)
    leaked = [n for n, secret in enumerate(run.secrets) if secret and secret in text]
    run.check(
        8,
        {"no title, message or key in the report": not leaked},
        leaked_items=len(leaked),
        report_bytes=len(text.encode()),
    )


def waiting(endpoint: Endpoint) -> VerificationReport | None:
    """The latest run of this endpoint that ``finish`` has work for."""
    return (
        VerificationReport.objects.filter(**endpoint.scope())
        .filter(Q(verdict=Verdict.AWAITING) | Q(cleanup=Cleanup.PENDING))
        .first()
    )


def finish(endpoint: Endpoint, user, say: Callable) -> VerificationReport | None:
    """Execute the approved deletion of the latest run, check what survived, and go on
    deleting what the run created (see ``clean_up``)."""
    report = waiting(endpoint)
    if report is None:
        return None
    run = Run(report, endpoint, user, say)
    run.secrets += [_title(report.session_id), PROMPT]
    if report.verdict == Verdict.AWAITING:
        if report.cleanup == Cleanup.NONE:  # a run recorded before the clean-up existed
            report.cleanup = Cleanup.PENDING
        if not _finish_step_7(run):
            return report
    clean_up(run)
    return report


def _finish_step_7(run: Run) -> bool:
    """Step 7 of a run that passed steps 1-6. False while the deletion waits for review."""
    report, user = run.report, run.user
    case = report.deletion
    case.refresh_from_db()  # type: ignore[union-attr]
    if case.status == Status.PENDING:  # type: ignore[union-attr]
        run.say(f"7. WAIT  deletion request #{case.pk} is still pending review.")  # type: ignore[union-attr]
        return False
    try:
        if case.status == Status.APPROVED:  # type: ignore[union-attr]
            execute.execute(case, user)  # type: ignore[arg-type]
            case.refresh_from_db()  # type: ignore[union-attr]
        result = case.result or {}  # type: ignore[union-attr]
        target = next((d for d in result.get("deleted", []) if d["id"] == case.session_id), {})  # type: ignore[union-attr, var-annotated]
        kept = {s["id"]: s.get("state") for s in result.get("survivors", [])}
        run.check(
            7,
            {
                "the deletion was executed": case.status == Status.EXECUTED,  # type: ignore[union-attr]
                "the session is gone": target.get("state") == confirm_gone.GONE,
                "the branch survived as a root": kept.get(report.child_id) == confirm_gone.ROOT,
            },
            request_id=case.pk,  # type: ignore[union-attr]
            status=case.status,  # type: ignore[union-attr]
            idempotency_key=case.idempotency_key,  # type: ignore[union-attr]
            deleted=result.get("deleted", []),
            survivors=result.get("survivors", []),
            external_artifacts=ARTIFACTS,
        )
        _step_8(run)
    except Failed:
        _finish(report, Verdict.FAILED)
        return True
    except HermesError as error:
        _failed_unexpectedly(run, error)
        return True
    _finish(report, Verdict.PASSED)
    return True


def clean_up(run: Run) -> None:
    """Move the deletion of what the run created one step on, through the four-eyes path.

    The session first, then its branch: each is filed as a deletion request,
    approved by another admin in the browser and executed by a later
    ``finish``, through ``deletion.request`` and ``deletion.execute`` like any
    other deletion. A request that expired or went void is filed again; a
    rejected one ends the clean-up (the admin decided to keep the sessions).
    """
    report = run.report
    if report.cleanup != Cleanup.PENDING:
        return
    try:
        if not _deleted(run, "deletion", report.session_id, REASON):
            if report.child_id and report.cleanup == Cleanup.PENDING:
                run.note(
                    f"{report.child_id} (if Hermes made it) is asked for once "
                    f"{report.session_id} is deleted: deleting a session changes its branch."
                )
            return
        branch = report.child_id
        if branch and not _deleted(run, "branch_deletion", branch, BRANCH_REASON):
            return
    except HermesError as error:
        run.note(
            f"Hermes failed ({error.code}); nothing more was done. Run {run.finish_command} again."
        )
        return
    report.cleanup = Cleanup.DONE
    report.save()
    run.note("every session this check created is deleted.")


def _deleted(run: Run, field: str, session_id: str, reason: str) -> bool:
    """Whether ``session_id`` is deleted; if not, the next step towards it (file, execute)."""
    report = run.report
    case: DeletionRequest | None = getattr(report, field)
    if case is not None:
        case.refresh_from_db()
        url = reverse("deletion_detail", kwargs={"pk": case.pk})
        if case.status == Status.APPROVED:
            execute.execute(case, run.user)
            case.refresh_from_db()
        if case.status == Status.EXECUTED:
            run.note(f"{session_id} is deleted (deletion request #{case.pk}).")
            return True
        if case.status == Status.PENDING:
            run.note(
                f"deletion request #{case.pk} for {session_id} waits for another admin: "
                f"{url} — then run {run.finish_command}"
            )
            return False
        if case.status == Status.UNCERTAIN:
            run.note(
                f"the DELETE of {session_id} is uncertain: check it on {url}, then run "
                f"{run.finish_command}"
            )
            return False
        if case.status == Status.REJECTED:
            report.cleanup = Cleanup.KEPT
            report.save()
            run.note(f"deletion request #{case.pk} was rejected: {session_id} is kept.")
            return False
        # Expired or void: the approval lapsed or the session changed. Ask again.
    case = _file(run, session_id, reason)
    setattr(report, field, case)
    report.save()
    if case is None:
        run.note(f"{session_id} does not exist on Hermes: nothing to delete.")
        return True
    url = reverse("deletion_detail", kwargs={"pk": case.pk})
    run.note(
        f"deletion request #{case.pk} for {session_id} filed; another admin approves it "
        f"at {url} — then run {run.finish_command}"
    )
    return False


def _file(run: Run, session_id: str, reason: str) -> DeletionRequest | None:
    """A deletion request for a session the check created; None if Hermes never had it."""
    try:
        case, _ = deletion_request.create(run.endpoint, session_id, run.user, reason)
    except e.NotFound:
        return None
    return case
