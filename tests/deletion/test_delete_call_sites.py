"""Nothing in the dashboard calls DELETE except the execution of an approved request."""

import ast
import re
from pathlib import Path

import hermes_ui

PACKAGE = Path(hermes_ui.__file__).resolve().parent
BENCH = PACKAGE.parent / "devtools" / "bench" / "deletion.py"
TEMPLATES = PACKAGE.parent / "templates"
CLIENT = PACKAGE / "hermes" / "client.py"
EXECUTE = PACKAGE / "deletion" / "execute.py"


def _sources():
    return [p for p in PACKAGE.rglob("*.py") if "migrations" not in p.parts]


def _calls(path: Path, name: str) -> list[int]:
    """Lines where ``name`` is called or referenced as an attribute (``x.name``)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == name
    ]


def test_delete_session_is_called_only_by_the_execution_of_an_approved_request():
    sites = {
        p.relative_to(PACKAGE).as_posix(): lines
        for p in _sources()
        if (lines := _calls(p, "delete_session"))
    }
    assert list(sites) == ["deletion/execute.py"], sites
    assert len(sites["deletion/execute.py"]) == 1
    # ...and that one call sits in the function run under the approval's idempotency key.
    tree = ast.parse(EXECUTE.read_text())
    owner = next(
        f
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef)
        and any(isinstance(n, ast.Attribute) and n.attr == "delete_session" for n in ast.walk(f))
    )
    assert owner.name == "_delete"


def test_the_benchmark_deletes_only_on_the_scratch_peer_it_starts():
    # The deletion benchmark (dev tooling, outside the app) deletes on the peer
    # it starts itself, never on a configured endpoint.
    assert _calls(BENCH, "delete_session")
    text = BENCH.read_text()
    assert "Peer(PeerConfig(home=home" in text and "get_endpoint" not in text
    assert "HERMES_ENDPOINTS" not in text and "client_for" not in text


def test_no_other_code_sends_an_http_delete():
    pattern = re.compile(r"""["']DELETE["']|httpx\.delete\(|method\s*=\s*["']delete""", re.I)
    offenders = [
        f"{p.relative_to(PACKAGE)}:{n}"
        for p in _sources()
        if p != CLIENT
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []
    # Templates cannot send DELETE either (no hx-delete anywhere).
    assert [p.name for p in TEMPLATES.rglob("*.html") if "hx-delete" in p.read_text()] == []


def test_the_client_delete_is_the_only_delete_request_it_builds():
    text = CLIENT.read_text()
    assert text.count('"DELETE"') == 1
    assert "def delete_session" in text
