"""Run inside ``manage.py shell`` on PostgreSQL: parallel chat admissions against the caps.

Twenty threads, each with its own database connection, call ``admit`` (what
the chat POST calls, with a valid ``ChatForm``), each for a different session
of the real peer, so only the caps can refuse them. The threads are lined up
after their last Hermes read (a barrier behind the client's ``get_session``),
so all twenty reach the count-and-insert transaction together, as a burst of
POSTs would at worst. Admitted turns stay ``pending`` (nothing is sent), so
each counts as running. Prints ``admitted <scenario> <n> of <tries> (cap
<cap>)`` and the refusal codes.
"""

import threading
from collections import Counter

from django.contrib.auth import get_user_model
from django.db import connection, connections
from django.test import override_settings

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.chat.admission import admit
from hermes_ui.chat.compose import ChatForm
from hermes_ui.chat.models import Turn
from hermes_ui.hermes.client import client_for
from hermes_ui.platform.endpoints import get_endpoint

TRIES = 20


def main() -> None:
    assert connection.vendor == "postgresql", connection.vendor
    ep = get_endpoint("local")
    client = client_for(ep)
    run = mint_key()[:8]
    sessions = []
    for n in range(2 * TRIES):
        sid = f"caps-{run}-{n}"
        client.create_session(idempotency_key=mint_key(), session_id=sid, title=sid)
        sessions.append(sid)
    people = get_user_model()
    one = people.objects.create_user(f"caps-one-{run}")
    many = [people.objects.create_user(f"caps-{run}-{n}") for n in range(TRIES)]

    # One person, twenty parallel turns on twenty sessions: at most their cap.
    with override_settings(HERMES_CHAT_MAX_TURNS_PER_USER=3, HERMES_CHAT_MAX_TURNS=50):
        codes = _burst(ep, [(one, sid) for sid in sessions[:TRIES]])
    admitted = Turn.objects.filter(user=one).count()
    print(f"admitted per-user {admitted} of {TRIES} (cap 3) refused {dict(codes)}")

    # Twenty people, one turn each: at most the dashboard's cap overall.
    Turn.objects.all().delete()
    with override_settings(HERMES_CHAT_MAX_TURNS_PER_USER=3, HERMES_CHAT_MAX_TURNS=5):
        codes = _burst(ep, list(zip(many, sessions[TRIES:], strict=True)))
    admitted = Turn.objects.count()
    print(f"admitted overall {admitted} of {TRIES} (cap 5) refused {dict(codes)}")


def _burst(ep, pairs) -> Counter:
    """Admit every (user, session) pair at once, one thread and connection each."""
    lined_up = threading.Barrier(len(pairs))
    codes: Counter = Counter()
    lock = threading.Lock()
    client = client_for(ep)  # the pooled client ``admit`` uses
    read = client.get_session

    def read_then_line_up(session_id):
        row = read(session_id)
        lined_up.wait(timeout=30)
        return row

    def one(user, sid):
        try:
            form = ChatForm({"message": "hello", "form_key": mint_key()})
            assert form.is_valid(), form.errors
            admission = admit(ep, sid, form, user, "stream")
            outcome = admission.refusal or ("error" if admission.error else "admitted")
            with lock:
                codes[outcome] += 1
        finally:
            connections.close_all()

    client.get_session = read_then_line_up
    try:
        threads = [threading.Thread(target=one, args=pair) for pair in pairs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        del client.get_session
    codes.pop("admitted", None)
    return codes
