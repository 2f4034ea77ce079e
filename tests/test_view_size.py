"""Views stay short (issue 21): a view that grows past about 40 lines moves its work out."""

import ast
from pathlib import Path

HERMES_UI = Path(__file__).resolve().parent.parent / "hermes_ui"
LIMIT = 40  # lines, decorators included


def _functions():
    modules = {*HERMES_UI.rglob("views.py"), *HERMES_UI.rglob("views/*.py")}
    for path in sorted(modules):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                yield path.relative_to(HERMES_UI.parent), node.name, node.end_lineno - first + 1


def test_the_view_modules_are_found():
    names = {name for _, name, _ in _functions()}
    assert {"search_page", "session_list", "session_detail", "session_export"} <= names


def test_no_view_function_is_longer_than_the_limit():
    long = [f"{path}:{name} ({lines} lines)" for path, name, lines in _functions() if lines > LIMIT]
    assert not long, f"views over {LIMIT} lines: {long}; move their work out of the view"
