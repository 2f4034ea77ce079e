"""How a POST that started a job answers: at once, with the job's progress page."""

from django.http import HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse

from hermes_ui.background.jobs import views
from hermes_ui.background.jobs.models import Job
from hermes_ui.web.errors import whole_page


class SeeOther(HttpResponseRedirect):
    """303: the browser GETs the progress page, and a reload never re-posts the form."""

    status_code = 303


def started(request, job: Job):
    url = reverse("job", kwargs={"pk": job.pk})
    if not request.htmx:
        return SeeOther(url)
    # htmx: the progress page takes the main area in place (it polls from
    # there on) and the address bar shows it, so a reload stays on it.
    response = whole_page(request, render(request, views.TEMPLATE, views.context(job)))
    response["HX-Push-Url"] = url
    return response
