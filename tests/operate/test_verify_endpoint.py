"""``manage.py verify_endpoint`` on a real peer; --finish after a second admin approved."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from hermes_ui.audit.models import AuditEvent
from hermes_ui.hermes import errors as e
from hermes_ui.verification.models import Verdict, VerificationReport
from tests.deletion.helpers import decide
from tests.operate.conftest import read

pytestmark = [pytest.mark.django_db, pytest.mark.peer]


def run(*args) -> str:
    out = io.StringIO()
    call_command("verify_endpoint", *args, stdout=out)
    return out.getvalue()


def test_a_full_verification_run_with_finish(endpoints, users, login):
    first = run("b", "--user", "admin")
    lines = [line for line in first.splitlines() if line[:2] in {f"{n}." for n in range(1, 9)}]
    assert [line.split()[1] for line in lines] == ["PASS"] * 6 + ["WAIT", "PASS"]
    report = VerificationReport.objects.get()
    assert report.verdict == Verdict.AWAITING and report.endpoint == "b"
    case = report.deletion
    assert reverse("deletion_detail", kwargs={"pk": case.pk}) in first
    assert case.survivor_ids == [report.child_id]

    # Not approved yet: --finish waits and changes nothing.
    assert "still pending" in run("b", "--user", "admin", "--finish")
    assert read(endpoints["b"], report.session_id).id == report.session_id

    # The requester cannot approve; another admin does, through the views.
    assert decide(login("admin"), case.pk).status_code == 403
    assert decide(login("admin2"), case.pk, rule="test_or_duplicate").status_code == 302

    finished = run("b", "--user", "admin", "--finish")
    assert "7. PASS" in finished and "8. PASS" in finished and "passed" in finished
    report.refresh_from_db()
    assert report.verdict == Verdict.PASSED and report.passed_steps == 8
    with pytest.raises(e.NotFound):
        read(endpoints["b"], report.session_id)
    assert read(endpoints["b"], report.child_id).parent_id is None  # the branch survived
    # Everything happened on b; a never heard of the verification session.
    with pytest.raises(e.NotFound):
        read(endpoints["a"], report.session_id)
    assert set(AuditEvent.objects.filter(session_id=report.session_id)
               .values_list("endpoint", flat=True)) == {"b"}  # fmt: skip
    # Ids, keys and codes; no title, message or key.
    text = str(report.steps)
    assert "Verification verify-" not in text and "integration check. Reply" not in text
    assert endpoints["b"].api_key not in text
    assert report.steps[2]["evidence"]["idempotency_key"]
    page = login("support").get(reverse("endpoint_list")).content.decode()
    assert "passed" in page and "(8 of 8 steps passed)" in page

    with pytest.raises(CommandError):
        run("b", "--user", "admin", "--finish")  # nothing waits any more
