"""The usage table as CSV: the same cells, formula-leading text made inert.

A source or model name comes from Hermes; a cell starting with ``=``, ``+``,
``-``, ``@`` (or a tab or carriage return) would be run as a formula by a
spreadsheet, so it gets a leading apostrophe (OWASP's advice). Numbers are
written by us and left alone.
"""

from __future__ import annotations

import csv
import io

from django.http import HttpResponse

from hermes_ui.usage.report import COLUMNS, Report

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def inert(cell: str) -> str:
    return "'" + cell if cell.startswith(FORMULA_START) else cell


def rows(report: Report, group_label: str) -> list[list[str]]:
    header = ["Day", group_label, "Kind", *(label for _, label in COLUMNS)]
    body = [report.cells(line) for line in report.lines]
    for row in body:
        row[1] = inert(row[1])
    return [header, *body, report.cells()]


def response(report: Report, group_label: str, filename: str) -> HttpResponse:
    out = io.StringIO()
    csv.writer(out).writerows(rows(report, group_label))
    answer = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    answer["Content-Disposition"] = f'attachment; filename="{filename}"'
    return answer
