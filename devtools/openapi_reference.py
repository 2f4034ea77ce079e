"""The API reference page of the docs, rendered from the OpenAPI document the code generates.

django-ninja builds the document from the routes' signatures and schemas
(``hermes_ui.api.main.api``); this renders it as Markdown, one section per
route, so the reference in the docs is the API that runs.
"""

from __future__ import annotations

import os


def schema() -> dict:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hermes_ui.settings")
    import django

    django.setup()
    from hermes_ui.api.main import api

    return api.get_openapi_schema(path_prefix="/api/v1")


def _cell(text) -> str:
    return " ".join(str(text or "").split()).replace("|", "\\|")


def markdown(document: dict | None = None) -> str:
    document = document or schema()
    info = document.get("info", {})
    out = [
        "# API reference",
        "",
        f"{info.get('title', '')}, version {info.get('version', '')}: every route, generated",
        "from the OpenAPI document (`/api/v1/openapi.json`) when the docs are built.",
        "Every route takes `Authorization: Bearer <token>` (see [the REST API](index.md)).",
        "",
    ]
    for path, methods in document.get("paths", {}).items():
        for method, op in methods.items():
            out += [f"## `{method.upper()} {path}`", ""]
            if op.get("summary"):
                out += [_cell(op["summary"]), ""]
            if op.get("description"):
                out += [op["description"].strip(), ""]
            params = op.get("parameters") or []
            if params:
                out += ["| Parameter | In | Required | Type |", "|---|---|---|---|"]
                for p in params:
                    kind = (p.get("schema") or {}).get("type", "")
                    out.append(
                        f"| `{p['name']}` | {p.get('in', '')} | "
                        f"{'yes' if p.get('required') else 'no'} | {kind} |"
                    )
                out.append("")
            codes = ", ".join(f"`{code}`" for code in (op.get("responses") or {}))
            if codes:
                out += [f"Answers: {codes}.", ""]
    return "\n".join(out).rstrip() + "\n"
