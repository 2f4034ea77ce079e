"""MkDocs hooks (``hooks:`` in mkdocs.yml): the settings and API references are generated."""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from devtools import openapi_reference, settings_reference  # noqa: E402

MARKER = "<!-- settings-reference -->"


def on_config(config, **kwargs):
    problems = settings_reference.problems()
    if problems:
        raise PluginError("The settings reference does not match the code:\n" + "\n".join(problems))
    return config


def on_files(files, config, **kwargs):
    """The API reference is generated from the OpenAPI document of the running code."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, "api/reference.md", content=openapi_reference.markdown()))
    return files


def on_page_markdown(markdown, page, config, files):
    if MARKER in markdown:
        return markdown.replace(MARKER, settings_reference.markdown_table())
    return markdown
