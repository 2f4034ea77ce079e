"""Routine success of background rounds at DEBUG, so the console keeps what needs a person.

django-tasks logs every task's start and success at INFO: the demo's rounds made
two lines each, every minute. Failures keep their level (ERROR with a traceback).
"""

from __future__ import annotations

import logging

_ROUTINE_STATES = {"RUNNING", "SUCCESSFUL"}


class RoutineAtDebug(logging.Filter):
    """Turns django-tasks' "Task ... state=RUNNING/SUCCESSFUL" records into DEBUG ones."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO or not record.msg.startswith("Task id="):
            return True
        if not any(str(arg) in _ROUTINE_STATES for arg in record.args or ()):
            return True
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger().isEnabledFor(logging.DEBUG)
