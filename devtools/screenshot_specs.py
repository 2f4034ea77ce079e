"""The screenshots the docs show: which page, as whom, centred on which element.

``make screenshots`` writes each to ``docs/images/<name>.png`` from the demo
seed; ``make test`` opens every one of them in Chromium and fails when the
element a screenshot is centred on is gone (``tests/docs/test_screenshots.py``).
"""

from dataclasses import dataclass
from urllib.parse import quote

from devtools.peer import demo_ids


@dataclass(frozen=True)
class Shot:
    name: str  # docs/images/<name>.png
    role: str  # the demo login that takes it
    path: str  # "{ep}" is the endpoint id
    element: str  # a CSS selector: the picture is centred on it
    width: int = 1280
    height: int = 720
    opens: str = ""  # a side panel of the session page to open first (its name)


def _session(session_id: str) -> str:
    from urllib.parse import quote

    return "/e/{ep}/sessions/" + quote(session_id, safe="") + "/"


def _chat(session_id: str) -> str:
    from urllib.parse import quote

    return "/e/{ep}/chat/" + quote(session_id, safe="") + "/"


SHOTS = [
    Shot("index", "support", "/e/{ep}/sessions/?view=all", "#results"),
    Shot("browse", "support", "/e/{ep}/sessions/", "#results"),
    Shot("search", "support", "/e/{ep}/sessions/?q=billing", "#content-results"),
    Shot("session", "support", _session(demo_ids.TOOL_SESSION), "#messages"),
    Shot(
        "lineage", "support", "/e/{ep}/lineage/" + demo_ids.DELEGATE_PARENT + "/", "#lineage-graph"
    ),
    Shot("changes", "reviewer", _session(demo_ids.TOOL_SESSION), "#change-actions"),
    # The chat form opens on demand; its own page shows it as "Write a message…" opens it.
    Shot("chat", "support", _chat(demo_ids.TOOL_SESSION), "#chat-form"),
    Shot("notes", "support", _session(demo_ids.TOOL_SESSION), "#notes-region", opens="notes"),
    Shot("triage", "admin", "/tags/", "#new-tag-form"),
    Shot("export", "support", _session(demo_ids.TOOL_SESSION), "#export-box", opens="export"),
    Shot("usage", "support", "/e/{ep}/usage/", "#usage-form"),
    Shot("bulk", "support", "/e/{ep}/sessions/?view=all", "#bulk-form"),
    Shot("queues", "reviewer", "/e/{ep}/review/", "#queue-form"),
    Shot("review-data", "reviewer", "/e/{ep}/review/dataset/?q=", "#dataset-form"),
    Shot(
        "compare",
        "reviewer",
        f"/e/{{ep}}/compare/?a={demo_ids.BRANCH_A}&b={demo_ids.BRANCH_B}",
        "#deltas",
    ),
    Shot("login", "support", "/accounts/login/", ".login-box"),
    Shot("deletion", "admin", "/deletions/", "#queue"),
    Shot(
        "sharing",
        "support",
        "/e/{ep}/share/" + quote(demo_ids.TOOL_SESSION, safe="") + "/",
        "#share-form",
        height=900,
    ),
    Shot("endpoints", "admin", "/endpoints/", "#endpoints"),
    Shot("retention", "admin", "/retention/", "#keep-h"),
    Shot("webhooks", "admin", "/webhooks/", "#new-webhook-form"),
    Shot("access", "admin", "/access/", "#people-table"),
    Shot("notifications", "support", "/account/notifications/", "#preferences-form"),
    Shot("tokens", "reviewer", "/account/tokens/", "#new-token-form"),
    # The session page as the issue asks to show it: the first message on the first screen.
    Shot(
        "session-page-wide", "support", _session(demo_ids.TOOL_SESSION), "#session-title", 1366, 768
    ),
    Shot(
        "session-page-phone", "support", _session(demo_ids.TOOL_SESSION), "#session-title", 390, 844
    ),
]

# Pictures no fixed page shows (a link made in the test, a second person's view): the
# browser test of each journey writes them, under HERMES_UI_SCREENSHOTS as above.
JOURNEY_SHOTS = {
    "tests/shares/test_browser_shares.py": (
        "sharing-link-made",
        "sharing-page-phone",
        "sharing-list-approve",
        "sharing-page-outside",
        "sharing-revoked-410",
    ),
}
