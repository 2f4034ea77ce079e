"""Exporting a session (or its whole lineage) as JSON, Markdown or HTML."""
