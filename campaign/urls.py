from django.contrib import admin
from django.urls import include, path, register_converter

from campaign.http import health
from campaign.http.converters import IdConverter

register_converter(IdConverter, "id")
handler404 = "campaign.api.errors.not_found"

urlpatterns = [
    # For a load balancer: no authentication, no secrets (docs/operations.md, "Health checks").
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("admin/", admin.site.urls),
    path("api/", include("campaign.api.urls")),
    path("", include("campaign.web.urls")),
]
