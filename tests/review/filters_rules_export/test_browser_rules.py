"""In Chromium, keyboard only: a queue owner adds a rule and runs it; the index shows the
queue's sessions with their review badges; the dataset form. Screenshotted for review."""

import subprocess
import sys

import pytest

from tests.support.browser import REPO, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.peer]

MAKE_QUEUE = """
from django.contrib.auth import get_user_model
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.review.models import Queue, Rubric, RubricVersion
rubric, made = Rubric.objects.get_or_create(name="browser rules")
if made:
    RubricVersion.objects.create(rubric=rubric, number=1, fields=[])
queue, _ = Queue.objects.get_or_create(
    **get_endpoint("local").scope(), name="browser rules",
    defaults={"rubric": rubric, "owner": get_user_model().objects.get(username="reviewer")},
)
print(queue.pk)
"""


def test_a_rule_is_added_run_and_its_sessions_found_by_keyboard(page, dashboard, dashboard_logins):
    dashboard.manage("run_periodic", "index")  # the index the rule searches
    made = subprocess.run(
        [sys.executable, str(REPO / "manage.py"), "shell", "-c", MAKE_QUEUE],
        env=dashboard.env,
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    queue = int(made.stdout.strip().splitlines()[-1])
    dashboard_logins.sign_in(page, "reviewer")
    page.goto(f"{dashboard.base_url}/e/local/review/{queue}/rules/")
    assert page.locator("#no-rules").is_visible()
    page.focus("#id_query")
    page.keyboard.type("source:telegram")
    page.keyboard.press("Tab")
    page.keyboard.press("Control+A")
    page.keyboard.type("50")
    page.keyboard.press("Enter")
    page.wait_for_selector("#rules")
    assert "not yet" in page.locator("#rules tbody tr").inner_text()
    page.focus("#rules button[value=run]")
    page.keyboard.press("Enter")
    page.wait_for_selector("#rules td.rule-added")
    added = int(page.locator("#rules td.rule-added").inner_text())
    assert added > 0 and "not yet" not in page.locator("#rules tbody tr").inner_text()
    screenshot(page, "review-rules")
    page.goto(dashboard.base_url + "/e/local/sessions/?q=queue%3A%22browser+rules%22")
    assert f"{added} matching session" in page.content()
    assert page.locator(".badge-kind-review", has_text="reviewing 0/1").count() == min(added, 50)
    screenshot(page, "review-queue-in-index")
    page.goto(dashboard.base_url + "/e/local/review/dataset/?q=queue%3A%22browser+rules%22")
    assert page.locator("#id_q").input_value() == 'queue:"browser rules"'
    assert page.locator("#id_redact").count() == 1  # a reviewer may switch masking off
    screenshot(page, "review-dataset-form")
