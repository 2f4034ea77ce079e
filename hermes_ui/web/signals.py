"""Signals features above the session page listen to, without the page importing them.

``session_viewed``: a user opened a session page and saw its transcript
(``sender``: the view function; ``request``, ``endpoint``, ``session_id``,
``session``: the ``hermes.Session`` read, ``message_count``: active messages
shown). Receivers must be quick and must not raise: the page is already read.
"""

from django.dispatch import Signal

session_viewed = Signal()
