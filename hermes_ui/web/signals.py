"""Signals features listen to without the web toolkit importing them."""

from django.dispatch import Signal

# A user opened a session page and saw its transcript (``request``, ``endpoint``,
# ``session_id``, ``session``, ``message_count``). Receivers must be quick and must
# not raise: the page is already read.
session_viewed = Signal()
# A page is about to show a Hermes failure (``error``, ``endpoint``); a receiver may
# return extra context that explains it in its own terms (endpoint status: no session API).
failure_shown = Signal()
