"""List functions in the view modules longer than a limit (default 40 lines)."""

import ast
import sys
from pathlib import Path

LIMIT = int(sys.argv[1]) if len(sys.argv) > 1 else 40


def view_modules(root: Path):
    yield from root.rglob("views.py")
    yield from root.rglob("views/*.py")


def main() -> int:
    found = 0
    for path in sorted(set(view_modules(Path("hermes_ui")))):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                length = node.end_lineno - first + 1
                if length > LIMIT:
                    found += 1
                    print(f"{path}:{node.lineno} {node.name} {length}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
