from django.contrib import admin
from django.urls import include, path, register_converter

from campaign.converters import IdConverter

register_converter(IdConverter, "id")
handler404 = "campaign.api.errors.not_found"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("campaign.api.urls")),
    path("", include("campaign.web.urls")),
]
