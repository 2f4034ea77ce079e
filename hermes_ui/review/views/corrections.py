"""A reviewer's correction of an assistant message: the form, and saving it.

The original is read from Hermes on every request (the form never carries
it). Without JavaScript the form posts and redirects to the message; with
htmx the message's review region swaps in place, showing the new diff.
"""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import reswap, retarget

from hermes_ui.hermes import HermesError, client_for, transcript
from hermes_ui.hermes.ids import IdError, check_path_id
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.review import corrections, note_marks
from hermes_ui.review.note_forms import CorrectionForm, MessageQuery
from hermes_ui.web.errors import whole_page
from hermes_ui.web.failures import bad_id, error_page
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import REVIEWER, role_required

TEMPLATE = "review/correction.html"


@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
@role_required(REVIEWER)
def message_correction(request: HtmxHttpRequest, endpoint, session_id) -> HttpResponse:
    """GET: the form (``?message=``), filled with this reviewer's correction or the
    message itself; POST: save it."""
    ep = get_endpoint(endpoint)
    query = MessageQuery(request.POST if request.method == "POST" else request.GET)
    if not query.is_valid() or query.cleaned_data["message"] is None:
        return whole_page(request, bad_id(request, ep, "Which message? Give its id as 'message'."))
    message_id = query.cleaned_data["message"]
    try:
        check_path_id(session_id)
        found = client_for(ep).get_messages(session_id)
        row = corrections.message_row(found, message_id)
    except (IdError, corrections.NotCorrectable) as exc:
        return whole_page(request, bad_id(request, ep, str(exc)))
    except HermesError as error:
        return error_page(request, error, ep)
    target = found["session_id"]  # the session whose transcript holds the message
    if request.method == "POST":
        return _save(request, ep, target, row)
    mine = corrections.mine(ep, request.user, target, message_id)
    text = mine.text if mine else corrections.original_text(row)
    form = CorrectionForm(initial={"message": message_id, "text": text}, auto_id=_ids(message_id))
    return _form(request, ep, target, row, form)


def _save(request, ep, session_id: str, row: dict):
    form = CorrectionForm(request.POST, auto_id=_ids(row["id"]))
    if not form.is_valid():
        return _form(request, ep, session_id, row, form, status=400)
    corrections.save(ep, request.user, session_id, row["id"], form.cleaned_data["text"])
    if request.htmx:
        # The message's whole review region, with the new diff, replaces the form's region.
        context = {"endpoint": ep, "resolved_id": session_id, "m": transcript.build([row])[0]}
        answer = render(request, "review/_message_notes.html", context)
        return reswap(retarget(answer, f"#msg-review-{row['id']}"), "outerHTML")
    messages.success(request, "Your correction was saved.")
    return redirect(note_marks.back_url(ep, session_id, row["id"]))


def _form(request, ep, session_id: str, row: dict, form, status=200):
    context = {
        "endpoint": ep,
        "session_id": session_id,
        "row": row,
        "original": corrections.original_text(row),
        "form": form,
        "post_url": note_marks.correction_url(ep, session_id, row["id"]),
        "back_url": note_marks.back_url(ep, session_id, row["id"]),
    }
    template = TEMPLATE + "#form" if request.htmx else TEMPLATE
    return render(request, template, context, status=status)


def _ids(message_id: int) -> str:
    return f"id_correction_{message_id}_%s"
