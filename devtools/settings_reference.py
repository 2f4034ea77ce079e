"""The settings reference of the docs, read from the code that parses the settings.

Every environment variable the dashboard reads goes through a strict reader of
``hermes_ui/platform/env.py`` (``env_int("NAME", default, minimum=…)``). This module
finds those calls in the source with ``ast``, so the reference lists exactly the
variables the code reads, with the defaults and bounds the code applies; only
the sentence that says what each one means comes from
``docs/operating/settings.yml``. A variable without a sentence, or a sentence for a
variable nothing reads, is an error (the docs build and ``tests/test_docs.py``
fail), so the page cannot drift from the code.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DESCRIPTIONS = ROOT / "docs" / "operating" / "settings.yml"
_READERS = {
    "env_str": "text",
    "env_bool": "true/false",
    "env_int": "integer",
    "env_float": "number",
    "env_list": "comma-separated list",
    "env_url": "http(s) URL",
    "env_addresses": "IP addresses or networks",
    "env_email": "e-mail address",
    "env_choice": "one of the listed words",
}


@dataclass(frozen=True)
class Setting:
    name: str
    kind: str
    default: str
    bounds: str
    where: str


def _literal(node: ast.expr | None, source: str) -> str:
    if node is None:
        return "none"
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return f"`{ast.get_source_segment(source, node)}`"
    if value is None or value == []:
        return "none"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, list):
        return f"`{','.join(map(str, value))}`"
    if isinstance(value, int | float) and abs(value) >= 10_000:
        return f"`{value:_}`"
    return f"`{value}`"


def _bounds(call: ast.Call, source: str) -> str:
    parts = []
    for keyword in call.keywords:
        if keyword.arg in {"minimum", "maximum"}:
            sign = "≥" if keyword.arg == "minimum" else "≤"
            parts.append(f"{sign} {_literal(keyword.value, source).strip('`')}")
    return ", ".join(parts)


def settings(root: Path = ROOT) -> list[Setting]:
    """Every variable read through ``hermes_ui/platform/env.py``, first reading wins."""
    found: dict[str, Setting] = {}
    for path in sorted((root / "hermes_ui").rglob("*.py")):
        if path.name == "env.py" or "migrations" in path.parts:
            continue
        source = path.read_text()
        if "env_" not in source:
            continue
        for node in ast.walk(ast.parse(source)):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            kind = _READERS.get(node.func.id)
            if kind is None or not node.args or not isinstance(node.args[0], ast.Constant):
                continue
            name = node.args[0].value
            default = node.args[1] if len(node.args) > 1 else None
            found.setdefault(
                name,
                Setting(
                    name=name,
                    kind=kind,
                    default=_literal(default, source),
                    bounds=_bounds(node, source),
                    where=str(path.relative_to(root)),
                ),
            )
    return sorted(found.values(), key=lambda s: s.name)


def descriptions(path: Path = DESCRIPTIONS) -> dict[str, str]:
    import yaml

    data = yaml.safe_load(path.read_text()) or {}
    return {str(k): " ".join(str(v).split()) for k, v in data.items()}


def problems(root: Path = ROOT) -> list[str]:
    """What keeps the reference from matching the code (empty when it does)."""
    read = {s.name for s in settings(root)}
    described = descriptions(root / "docs" / "operating" / "settings.yml")
    missing = sorted(read - described.keys())
    stale = sorted(described.keys() - read)
    out = [f"{name} is read by the code but has no sentence in settings.yml" for name in missing]
    out += [f"{name} is described in settings.yml but nothing reads it" for name in stale]
    return out


def markdown_table(root: Path = ROOT) -> str:
    described = descriptions(root / "docs" / "operating" / "settings.yml")
    rows = [
        "| Variable | Meaning | Kind | Default | Bounds |",
        "|---|---|---|---|---|",
    ]
    for s in settings(root):
        text = described.get(s.name, "").replace("|", "\\|")
        rows.append(f"| `{s.name}` | {text} | {s.kind} | {s.default} | {s.bounds} |")
    return "\n".join(rows)
