from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from campaign.api import recovery, views

urlpatterns = [
    path("users/", views.users, name="api-users"),
    path("auth/token/", views.token, name="api-token"),
    path("rulesets/", views.rulesets, name="api-rulesets"),
    path("campaigns/", views.campaigns, name="api-campaigns"),
    path("campaigns/import/", views.import_campaign, name="api-campaign-import"),
    path("campaigns/<id:campaign_id>/", views.campaign_detail, name="api-campaign"),
    path("campaigns/<id:campaign_id>/members/", views.members, name="api-members"),
    path("campaigns/<id:campaign_id>/characters/", views.characters, name="api-characters"),
    path("campaigns/<id:campaign_id>/clock/", views.clock, name="api-clock"),
    path("campaigns/<id:campaign_id>/events/", views.campaign_events, name="api-campaign-events"),
    path("campaigns/<id:campaign_id>/export/", views.export, name="api-export"),
    path("characters/<id:character_id>/", views.character_detail, name="api-character"),
    path("characters/<id:character_id>/actions/", views.actions, name="api-actions"),
    path("characters/<id:character_id>/events/", views.character_events, name="api-character-events"),
    path("jobs/<str:job_id>/", views.job_detail, name="api-job"),
    path("characters/<id:character_id>/restore/", views.character_restore, name="api-character-restore"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script as a file of its own (?script): no inline script.
    path(
        "docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api/docs.html"),
        name="api-docs",
    ),
    path(
        "campaigns/<id:campaign_id>/characters/numbered/",
        views.characters_numbered,
        name="api-characters-numbered",
    ),
    path(
        "characters/<id:character_id>/duplicate/", views.character_duplicate, name="api-character-duplicate"
    ),
    path("campaigns/<id:campaign_id>/members/<str:username>/", views.member_detail, name="api-member"),
    path("invitations/", views.invitations, name="api-invitations"),
    path("invitations/<id:invitation_id>/accept/", views.invitation_accept, name="api-invitation-accept"),
    path("invitations/<id:invitation_id>/decline/", views.invitation_decline, name="api-invitation-decline"),
    path("characters/<id:character_id>/forecast/", views.character_forecast, name="api-character-forecast"),
    path("campaigns/<id:campaign_id>/recovery/", recovery.campaign_recovery, name="api-campaign-recovery"),
    path("campaigns/<id:campaign_id>/clock/rewind/", views.clock_rewind, name="api-clock-rewind"),
    path("jobs/<str:job_id>/rolls/", views.job_rolls, name="api-job-rolls"),
    path("jobs/<str:job_id>/stop/", views.job_stop, name="api-job-stop"),
    path("jobs/<str:job_id>/go-on/", views.job_go_on, name="api-job-go-on"),
    path("push/key/", views.push_key, name="api-push-key"),
    path("push/subscriptions/", views.push_subscriptions, name="api-push-subscriptions"),
    path(
        "push/subscriptions/<id:subscription_id>/",
        views.push_subscription_detail,
        name="api-push-subscription",
    ),
    path("campaigns/<id:campaign_id>/hooks/", views.hooks, name="api-hooks"),
    path("campaigns/<id:campaign_id>/hooks/<id:hook_id>/", views.hook_detail, name="api-hook"),
    path("campaigns/<id:campaign_id>/hooks/<id:hook_id>/test/", views.hook_test, name="api-hook-test"),
]
