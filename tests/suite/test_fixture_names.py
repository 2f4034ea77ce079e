"""One definition per fixture name: a name means the same fixture in every folder.

A package that needs a fixture defined elsewhere imports it into its
``conftest.py``; the real peers are all defined in ``tests/support/peers.py``.
"""

import ast
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent


def _fixtures(path: Path):
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if ast.unparse(target) in ("pytest.fixture", "fixture"):
                    yield node.name


def test_every_fixture_name_is_defined_once():
    where = defaultdict(list)
    for path in sorted(TESTS.rglob("*.py")):
        for name in _fixtures(path):
            where[name].append(str(path.relative_to(TESTS)))
    twice = {name: files for name, files in where.items() if len(files) > 1}
    assert twice == {}


def test_real_peers_start_only_in_the_peers_module():
    starters = []
    for path in sorted(TESTS.rglob("*.py")):
        if path.name in ("peers.py", "test_fixture_names.py"):
            continue
        for name in _fixtures(path):
            source = ast.get_source_segment(path.read_text(), _function(path, name))
            if "running_peer(" in source:
                starters.append(f"{path.relative_to(TESTS)}::{name}")
    assert starters == []


def _function(path: Path, name: str):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return node
    raise LookupError(name)
