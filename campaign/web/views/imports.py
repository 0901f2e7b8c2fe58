"""A campaign imported from a file, and the import's progress."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_POST

from campaign import transfer
from campaign.http import limits
from campaign.models import ImportJob
from campaign.selectors import jobs
from campaign.web import forms
from campaign.web.views.cache import _limited
from campaign.web.views.home import _home_page, _new_campaign
from rules.ruleset import RuleError


@login_required
@require_POST
def campaign_import(request: HttpRequest) -> HttpResponse:
    """Check an export and start its import (the API's), then show the job's progress until the campaign is
    there. A refused file is shown on the home page, its line and field named."""
    try:
        forms.check_posted(request.POST, {"key": "key"})
        upload = request.FILES.get("file")
        if upload is None:
            raise RuleError("file", "expected an export file (JSON Lines) to import")
        with limits.campaigns(request.user):
            job = transfer.import_request(
                data=transfer.file_bytes(upload),
                user=request.user,
                idempotency_key=forms.idempotency_key(request.POST),
            )
    except RuleError as error:
        message = error.message if error.field in ("file", "detail") else f"{error.field}: {error.message}"
        return _limited(_home_page(request, _new_campaign(), {}, import_error=message), error)
    return redirect("import-progress", job_id=job.pk)


@login_required
def import_progress(request: HttpRequest, job_id: Any) -> HttpResponse:
    """An import's progress bar (polled, as the board's clock is), then its campaign."""
    job = jobs.import_job(request.user, job_id)
    if job is None:
        raise Http404
    if job.status == ImportJob.DONE:
        if request.htmx:
            response = HttpResponse(status=204)
            response["HX-Redirect"] = reverse("campaign", kwargs={"campaign_id": job.campaign_id})
            return response
        return redirect("campaign", campaign_id=job.campaign_id)
    context = {"job": job, "percent": round(100 * job.progress)}
    template = "import.html#progress" if request.htmx else "import.html"
    response = render(request, template, context)
    add_never_cache_headers(response)
    return response
