"""Walking the deletion workflow through the views, as a person would."""

from urllib.parse import urlencode

from django.urls import reverse

from hermes_ui.deletion.models import DeletionRequest


def new_url(session_id: str, endpoint: str = "local") -> str:
    return (
        reverse("deletion_new", kwargs={"endpoint": endpoint})
        + "?"
        + urlencode({"session": session_id})
    )


def request_deletion(client, session_id: str, reason: str = "Customer asked us to erase it"):
    answer = client.post(
        reverse("deletion_new", kwargs={"endpoint": "local"}),
        {"session": session_id, "reason": reason},
    )
    assert answer.status_code == 302, answer.content.decode()[:2000]
    return DeletionRequest.objects.get(pk=int(answer["Location"].rstrip("/").rsplit("/", 1)[1]))


def decide(
    client,
    pk: int,
    decision: str = "approve",
    rule: str = "owner_request",
    comment: str = "Verified the owner's ticket",
):
    return client.post(
        reverse("deletion_decide", kwargs={"pk": pk}),
        {"decision": decision, "policy_rule": rule, "comment": comment},
    )


def execute(client, pk: int, **extra):
    return client.post(reverse("deletion_execute", kwargs={"pk": pk}), **extra)


def check(client, pk: int):
    return client.post(reverse("deletion_check", kwargs={"pk": pk}))


def page(client, pk: int) -> str:
    answer = client.get(reverse("deletion_detail", kwargs={"pk": pk}))
    assert answer.status_code == 200
    return answer.content.decode()


def refresh(case: DeletionRequest) -> DeletionRequest:
    case.refresh_from_db()
    return case
