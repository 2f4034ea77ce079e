"""``manage.py verify_endpoint`` on a real peer; --finish after a second admin approved.

The check changes the endpoint, so it needs an admin and a confirmation, and
everything it creates (the session and its branch) ends with a deletion
filed through the four-eyes workflow, also when a step fails half way.
"""

import io

import httpx
import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from hermes_ui.audit.models import AuditEvent
from hermes_ui.deletion.models import DeletionRequest, Status
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient, use_transport
from hermes_ui.verification.models import Cleanup, Verdict, VerificationReport
from tests.deletion.helpers import decide
from tests.support.peers import read

pytestmark = [pytest.mark.django_db, pytest.mark.peer]


def run(*args, stdin=None) -> str:
    out = io.StringIO()
    extra = {"stdin": stdin} if stdin is not None else {}
    call_command("verify_endpoint", *args, stdout=out, **extra)
    return out.getvalue()


def run_failing(*args, stdin=None) -> tuple[str, CommandError]:
    out = io.StringIO()
    extra = {"stdin": stdin} if stdin is not None else {}
    with pytest.raises(CommandError) as failed:
        call_command("verify_endpoint", *args, stdout=out, **extra)
    return out.getvalue(), failed.value


def approve(login, case: DeletionRequest) -> None:
    assert decide(login("admin2"), case.pk, rule="test_or_duplicate").status_code == 302


def left_on(endpoint, prefix: str) -> list[str]:
    """Ids starting with ``prefix`` that the peer still has (administrative list)."""
    client = HermesClient(endpoint)
    try:
        rows = client.list_sessions(limit=200, source="api_server", include_children=True)
    finally:
        client.close()
    return [row["id"] for row in rows["data"] if row["id"].startswith(prefix)]


def recording(sent: list) -> httpx.MockTransport:
    """A Hermes that notes every request it gets (and answers 503)."""

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(503, text="down")

    return httpx.MockTransport(handler)


class Terminal(io.StringIO):
    """Standard input that is a terminal, holding what the operator types."""

    def isatty(self) -> bool:
        return True


class Faulty(httpx.BaseTransport):
    """Every request goes to the real peer, except where ``fault`` answers instead."""

    def __init__(self, fault):
        self.real, self.fault = httpx.HTTPTransport(), fault

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self.fault(request, self.real) or self.real.handle_request(request)

    def close(self) -> None:
        self.real.close()


def _chat_fails(request, real):
    """The turn of step 5 never reaches Hermes: a 500 instead."""
    if request.method == "POST" and request.url.path.endswith("/chat"):
        return httpx.Response(500, json={"error": {"code": "internal_error", "message": "x"}})
    return None


def _fork_answer_lost(request, real):
    """Step 6's fork reaches Hermes (the branch is made), but its answer is lost (502)."""
    if request.method == "POST" and request.url.path.endswith("/fork"):
        real.handle_request(request).close()
        return httpx.Response(502, text="bad gateway")
    return None


def test_a_full_verification_run_with_finish(endpoints, users, login):
    first = run("b", "--user", "admin", "--yes")
    lines = [line for line in first.splitlines() if line[:2] in {f"{n}." for n in range(1, 9)}]
    assert [line.split()[1] for line in lines] == ["PASS"] * 6 + ["WAIT", "PASS"]
    report = VerificationReport.objects.get()
    assert report.verdict == Verdict.AWAITING and report.endpoint == "b"
    case = report.deletion
    assert reverse("deletion_detail", kwargs={"pk": case.pk}) in first
    assert case.survivor_ids == [report.child_id]

    # Not approved yet: --finish waits and changes nothing.
    assert "still pending" in run("b", "--user", "admin", "--yes", "--finish")
    assert read(endpoints["b"], report.session_id).id == report.session_id

    # The requester cannot approve; another admin does, through the views.
    assert decide(login("admin"), case.pk).status_code == 403
    approve(login, case)

    finished = run("b", "--user", "admin", "--yes", "--finish")
    assert "7. PASS" in finished and "8. PASS" in finished and "passed" in finished
    report.refresh_from_db()
    assert report.verdict == Verdict.PASSED and report.passed_steps == 8
    with pytest.raises(e.NotFound):
        read(endpoints["b"], report.session_id)
    assert read(endpoints["b"], report.child_id).parent_id is None  # the branch survived
    # Everything happened on b; a never heard of the verification session.
    with pytest.raises(e.NotFound):
        read(endpoints["a"], report.session_id)
    assert set(
        AuditEvent.objects.filter(session_id=report.session_id).values_list("endpoint", flat=True)
    ) == {"b"}
    # Ids, keys and codes; no title, message or key.
    text = str(report.steps)
    assert "Verification verify-" not in text and "integration check. Reply" not in text
    assert endpoints["b"].api_key not in text
    assert report.steps[2]["evidence"]["idempotency_key"]
    page = login("support").get(reverse("endpoint_list")).content.decode()
    assert "passed" in page and "(8 of 8 steps passed)" in page

    # The branch (holding the prompt and the answer) is not left behind: its
    # deletion is filed through the same four-eyes path, now that it is a root.
    branch = report.branch_deletion
    assert branch is not None and branch.session_id == report.child_id
    assert branch.status == Status.PENDING and branch.requester == users["admin"]
    assert reverse("deletion_detail", kwargs={"pk": branch.pk}) in finished
    assert report.cleanup == Cleanup.PENDING
    waiting = run("b", "--user", "admin", "--yes", "--finish")
    assert f"request #{branch.pk} for {report.child_id} waits for another admin" in waiting
    assert read(endpoints["b"], report.child_id).id == report.child_id  # not before approval
    assert decide(login("admin"), branch.pk).status_code == 403  # four eyes again
    approve(login, branch)
    done = run("b", "--user", "admin", "--yes", "--finish")
    assert "every session this check created is deleted" in done
    with pytest.raises(e.NotFound):
        read(endpoints["b"], report.child_id)
    report.refresh_from_db()
    assert report.cleanup == Cleanup.DONE and report.verdict == Verdict.PASSED
    assert left_on(endpoints["b"], report.session_id) == []

    with pytest.raises(CommandError):
        run("b", "--user", "admin", "--yes", "--finish")  # nothing waits any more


@pytest.mark.parametrize(
    ("fault", "failed_step", "branch_made"),
    [(_chat_fails, 5, False), (_fork_answer_lost, 6, True)],
)
def test_a_failed_middle_step_still_files_the_deletion_of_what_it_created(
    endpoints, users, login, fault, failed_step, branch_made
):
    with use_transport(Faulty(fault)):
        out, error = run_failing("b", "--user", "admin", "--yes")
    assert "integration check failed" in str(error)
    report = VerificationReport.objects.get()
    sid = report.session_id
    assert report.verdict == Verdict.FAILED and f"{failed_step}. FAIL" in out
    assert read(endpoints["b"], sid).id == sid  # the session was made...
    case = report.deletion  # ...and its deletion is filed, for another admin to review
    assert case is not None and case.session_id == sid and case.status == Status.PENDING
    assert case.requester == users["admin"]
    assert reverse("deletion_detail", kwargs={"pk": case.pk}) in out
    assert report.cleanup == Cleanup.PENDING
    if branch_made:
        assert read(endpoints["b"], f"{sid}-branch").parent_id == sid
        assert report.child_id == f"{sid}-branch"
    else:
        assert left_on(endpoints["b"], sid) == [sid]

    approve(login, case)
    run("b", "--user", "admin", "--yes", "--finish")  # a failed run's clean-up judges nothing
    with pytest.raises(e.NotFound):
        read(endpoints["b"], sid)
    report.refresh_from_db()
    if branch_made:
        branch = report.branch_deletion
        assert branch.session_id == f"{sid}-branch" and branch.status == Status.PENDING
        approve(login, branch)
        run("b", "--user", "admin", "--yes", "--finish")
        report.refresh_from_db()
    assert report.cleanup == Cleanup.DONE and report.verdict == Verdict.FAILED
    assert left_on(endpoints["b"], sid) == []


@pytest.mark.parametrize("name", ["support", "reviewer"])
def test_only_an_admin_may_run_the_check(endpoints, users, name):
    sent = []
    with use_transport(recording(sent)):
        for finish in ([], ["--finish"]):
            with pytest.raises(CommandError, match="is not an admin"):
                run("b", "--user", name, "--yes", *finish)
    assert sent == [] and not VerificationReport.objects.exists()


def test_without_yes_and_without_a_terminal_it_refuses(endpoints, users):
    sent = []
    with use_transport(recording(sent)):
        for finish in ([], ["--finish"]):
            # Piped input is no confirmation, even when it says yes.
            _, refused = run_failing("b", "--user", "admin", *finish, stdin=io.StringIO("yes\n"))
            assert "--yes" in str(refused) and endpoints["b"].public_url in str(refused)
    assert sent == [] and not VerificationReport.objects.exists()


def test_at_a_terminal_it_asks_naming_the_endpoint_url(endpoints, users):
    url = endpoints["b"].public_url
    sent = []
    with use_transport(recording(sent)):
        out, refused = run_failing("b", "--user", "admin", stdin=Terminal("no\n"))
    assert url in out and "Type 'yes'" in out and "staging" in out
    assert "Not confirmed" in str(refused)
    assert sent == [] and not VerificationReport.objects.exists()

    # "yes" goes ahead (here Hermes fails at once, so the run stops at step 1).
    with use_transport(recording(sent)):
        out, failed = run_failing("b", "--user", "admin", stdin=Terminal("yes\n"))
    assert "integration check failed" in str(failed)
    assert url in out and "1. FAIL" in out and sent
    report = VerificationReport.objects.get()
    assert report.verdict == Verdict.FAILED and report.cleanup == Cleanup.NONE
