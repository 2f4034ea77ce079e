"""A script a client of the API would write, with the client openapi-python-client generates
from the document (``hermes_ui_client`` on ``sys.path``); run by test_generated_client.py.

    python client_script.py BASE_URL TOKEN SECOND_ADMINS_TOKEN

Creates a session (its id holding ``%``, ``#`` and a space), renames it, forks it,
chats with the fork, asks to delete the fork; the second admin approves. Each answer
is checked through the generated models; any surprise exits non-zero.
"""

from __future__ import annotations

import secrets
import sys
import uuid

from hermes_ui_client import AuthenticatedClient
from hermes_ui_client.api.changes import create_session, fork_session, patch_session
from hermes_ui_client.api.chat import chat_turn
from hermes_ui_client.api.deletions import deletion_approve, deletion_get
from hermes_ui_client.api.writes import deletion_ask
from hermes_ui_client.models import (
    Approve,
    ApprovePolicyRule,
    ChatBody,
    CreateBody,
    DeletionAsk,
    Error,
    ForkBody,
    PatchBody,
)

ENDPOINT = "local"


def key() -> str:
    return uuid.uuid4().hex  # a new Idempotency-Key for each intended change


def check(answer, status: int):
    assert answer.status_code == status, (answer.status_code, answer.content[:300])
    return answer.parsed


def main(base_url: str, token: str, second_token: str) -> None:
    script = AuthenticatedClient(base_url=base_url, token=token, raise_on_unexpected_status=True)
    second = AuthenticatedClient(base_url=base_url, token=second_token)
    sid = f"client {secrets.token_hex(4)} %41 #x"

    made = check(
        create_session.sync_detailed(
            ENDPOINT, client=script, body=CreateBody(session_id=sid), idempotency_key=key()
        ),
        201,
    )
    assert made.id == sid, made
    title = f"Generated client {sid[7:15]}"
    renamed = check(
        patch_session.sync_detailed(
            ENDPOINT, sid, client=script, body=PatchBody(title=title), idempotency_key=key()
        ),
        200,
    )
    assert renamed.title == title, renamed
    child = check(
        fork_session.sync_detailed(
            ENDPOINT, sid, client=script, body=ForkBody(), idempotency_key=key()
        ),
        201,
    )
    assert child.parent_session_id == sid, child
    turn = check(
        chat_turn.sync_detailed(
            ENDPOINT,
            child.id,
            client=script,
            body=ChatBody(message="hello client"),
            idempotency_key=key(),
        ),
        200,
    )
    assert turn.reply.role == "assistant" and turn.reply.content == "Echo: hello client", turn
    filed = check(
        deletion_ask.sync_detailed(
            ENDPOINT,
            child.id,
            client=script,
            body=DeletionAsk(reason="The generated client's test session"),
            idempotency_key=key(),
        ),
        201,
    )
    assert filed.session_id == child.id and filed.created, filed
    rule = Approve(
        policy_rule=ApprovePolicyRule.TEST_OR_DUPLICATE, comment="A test session of the client"
    )
    own = deletion_approve.sync_detailed(
        ENDPOINT, filed.request_id, client=script, body=rule, idempotency_key=key()
    )
    assert own.status_code == 403 and isinstance(own.parsed, Error), own  # four eyes
    approved = check(
        deletion_approve.sync_detailed(
            ENDPOINT, filed.request_id, client=second, body=rule, idempotency_key=key()
        ),
        200,
    )
    assert approved.state == "approved", approved
    state = check(deletion_get.sync_detailed(ENDPOINT, filed.request_id, client=script), 200)
    assert state.state == "approved", state
    print("journey ok", sid, child.id, filed.request_id)


if __name__ == "__main__":
    main(*sys.argv[1:4])
