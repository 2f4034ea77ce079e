"""``HERMES_UI_LOG_FORMAT=json``: one JSON object per log line (python-json-logger).

Only the named fields and a traceback are written. python-json-logger would
also add every extra attribute of a record, and Django's ``django.request``
records carry the request object, whose text holds the path (search text, ids).
"""

from __future__ import annotations

from datetime import UTC, datetime

from pythonjsonlogger.json import JsonFormatter

FIELDS = "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s"
NAMES = {"asctime": "time", "levelname": "level", "name": "logger"}


class JsonLines(JsonFormatter):
    """time, level, logger, message, request_id, and ``exc_info`` when there is one."""

    def __init__(self, **options):
        super().__init__(FIELDS, rename_fields=NAMES, **options)

    def formatTime(self, record, datefmt=None) -> str:
        """ISO 8601 in UTC, as log pipelines read it."""
        return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")

    def add_fields(self, log_data, record, message_dict) -> None:
        for field in self._required_fields:
            log_data[self._get_rename(field)] = record.__dict__.get(field)
        for key in ("exc_info", "stack_info"):
            if message_dict.get(key):
                log_data[key] = message_dict[key]
