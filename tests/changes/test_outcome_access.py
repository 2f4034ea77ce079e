"""Outcome pages belong to the change's actor and admins, and a GET of one writes nothing."""

import copy

import httpx

from hermes_ui.audit.models import AuditEvent, Outcome
from hermes_ui.index.models import KnownFork
from tests.support.samples import sample


def _event(endpoint, user, capability, outcome, evidence):
    return AuditEvent.objects.create(
        **endpoint.scope(),
        user=user,
        username=user.get_username(),
        capability=capability,
        session_id="peer-demo",
        outcome=outcome,
        evidence=evidence,
    )


def test_an_outcome_page_is_for_its_actor_and_admins(users, login, colleague, recorder):
    recorder.routes[("GET", "/api/sessions/peer-demo")] = "030_get"
    event = _event(
        recorder_endpoint(),
        users["support"],
        "session_patch",
        Outcome.SUCCESS,
        {"session_id": "peer-demo", "op": "rename"},
    )
    for url in (f"/e/local/changes/{event.pk}/", f"/e/local/changes/{event.pk}/check/"):
        assert login("support").get(url).status_code == 200, url
        assert login("admin").get(url).status_code == 200, url
        assert colleague.get(url).status_code == 403, url
        assert login("reviewer").get(url).status_code == 403, url
    assert colleague.post(f"/e/local/changes/{event.pk}/check/").status_code == 403


def _child_row(request):
    body = copy.deepcopy(sample("030_get")["body"])
    body["session"].update(id="kid-1", parent_session_id="peer-demo", title=None)
    return httpx.Response(200, json=body)


def test_checking_a_fork_writes_only_on_a_post_and_credits_the_actor(users, login, recorder):
    recorder.routes[("GET", "/api/sessions/peer-demo")] = "030_get"
    recorder.routes[("GET", "/api/sessions/kid-1")] = _child_row
    recorder.routes[("GET", "/api/sessions/kid-1/messages")] = "090_messages"
    recorder.routes[("GET", "/api/sessions/peer-demo/messages")] = "090_messages"
    event = _event(
        recorder_endpoint(),
        users["reviewer"],
        "session_fork",
        Outcome.UNCERTAIN,
        {"session_id": "peer-demo", "child_id": "kid-1", "attempted_at": 0},
    )
    admin = login("admin")
    page = admin.get(f"/e/local/changes/{event.pk}/")
    assert page.status_code == 200 and 'data-check="Child created"' in page.content.decode()
    assert admin.get(f"/e/local/changes/{event.pk}/check/").status_code == 200
    assert not KnownFork.objects.exists()  # reading wrote nothing

    page = admin.post(f"/e/local/changes/{event.pk}/check/")
    assert page.status_code == 200 and "What happened" in page.content.decode()
    fork = KnownFork.objects.get()
    assert (fork.parent_id, fork.child_id, fork.user) == ("peer-demo", "kid-1", users["reviewer"])


def test_the_check_button_is_a_form_that_posts(users, login, recorder):
    event = _event(
        recorder_endpoint(),
        users["reviewer"],
        "session_fork",
        Outcome.REFUSED,
        {"session_id": "peer-demo"},
    )
    html = login("reviewer").get(f"/e/local/changes/{event.pk}/").content.decode()
    form = html.split('id="reconcile"', 1)[1].split("</form>", 1)[0]
    assert f'method="post" action="/e/local/changes/{event.pk}/check/"' in form
    assert 'name="csrfmiddlewaretoken"' in form and 'id="check-link"' in form


def recorder_endpoint():
    from hermes_ui.platform.endpoints import get_endpoint

    return get_endpoint("local")
