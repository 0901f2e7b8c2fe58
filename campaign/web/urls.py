from django.urls import path

from campaign.web import recovery_page, views

urlpatterns = [
    path("", views.home, name="home"),
    path("campaigns/new/options/", views.new_campaign_options, name="new-campaign-options"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("manifest.webmanifest", views.manifest, name="manifest"),
    path("service-worker.js", views.service_worker, name="service-worker"),
    path("login/", views.LoginView.as_view(), name="login"),
    path("logout/", views.LogoutView.as_view(), name="logout"),
    path("signup/", views.signup, name="signup"),
    path("imports/", views.campaign_import, name="campaign-import"),
    path("imports/<uuid:job_id>/", views.import_progress, name="import-progress"),
    path("campaigns/<id:campaign_id>/", views.campaign_board, name="campaign"),
    path("campaigns/<id:campaign_id>/clock/", views.campaign_clock, name="campaign-clock"),
    path("campaigns/<id:campaign_id>/recovery/", recovery_page.campaign_recovery, name="campaign-recovery"),
    path("campaigns/<id:campaign_id>/members/", views.campaign_members, name="campaign-members"),
    path("campaigns/<id:campaign_id>/notifications/", views.campaign_hooks, name="campaign-hooks"),
    path(
        "campaigns/<id:campaign_id>/notifications/<id:hook_id>/test/",
        views.hook_test,
        name="campaign-hook-test",
    ),
    path(
        "campaigns/<id:campaign_id>/notifications/<id:hook_id>/remove/",
        views.hook_remove,
        name="campaign-hook-remove",
    ),
    path("campaigns/<id:campaign_id>/characters/", views.campaign_characters, name="campaign-characters"),
    path("characters/<id:character_id>/", views.character_page, name="character"),
    path("characters/<id:character_id>/act/<slug:action>/", views.character_act, name="character-act"),
    path("characters/<id:character_id>/forms/<slug:action>/", views.character_form, name="character-form"),
    path("characters/<id:character_id>/history/", views.character_history, name="character-history"),
    path("characters/<id:character_id>/card/<slug:action>/", views.card_act, name="card-act"),
    path("characters/<id:character_id>/duplicate/", views.character_duplicate, name="character-duplicate"),
    path("campaigns/<id:campaign_id>/npcs/", views.campaign_npcs, name="campaign-npcs"),
    path("campaigns/<id:campaign_id>/fight/", views.campaign_fight, name="campaign-fight"),
    path("characters/<id:character_id>/card/<slug:action>/form/", views.card_form, name="card-form"),
    path(
        "campaigns/<id:campaign_id>/members/<str:username>/remove/", views.member_remove, name="member-remove"
    ),
    path("invitations/<id:invitation_id>/<slug:answer>/", views.invitation_answer, name="invitation-answer"),
    path("characters/<id:character_id>/edit/", views.character_edit, name="character-edit"),
    path("characters/<id:character_id>/retire/", views.character_retire, name="character-retire"),
    path("characters/<id:character_id>/restore/", views.character_restore, name="character-restore"),
    path("campaigns/<id:campaign_id>/options/", views.campaign_options, name="campaign-options"),
    path("characters/<id:character_id>/forecast/", views.character_forecast, name="character-forecast"),
    path(
        "campaigns/<id:campaign_id>/clock/rewind/", views.campaign_clock_rewind, name="campaign-clock-rewind"
    ),
    path("campaigns/<id:campaign_id>/clock/roll/", views.campaign_clock_roll, name="campaign-clock-roll"),
    path("campaigns/<id:campaign_id>/clock/stop/", views.campaign_clock_stop, name="campaign-clock-stop"),
    path("campaigns/<id:campaign_id>/clock/go-on/", views.campaign_clock_go_on, name="campaign-clock-go-on"),
]
