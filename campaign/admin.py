from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from campaign.http.throttles import AdminLoginForm
from campaign.models import Campaign, Character, Event, Job, Membership, Timer

# The admin's log-in counts failed tries as the app's does (the demo GM is a superuser).
admin.site.login_form = AdminLoginForm


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    """Events are immutable: the admin can read them, never add, change or delete them."""

    list_display = ("position", "campaign", "stream", "version", "type", "game_time", "actor", "recorded_at")
    list_filter = ("type",)
    search_fields = ("stream", "type", "cause")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadModelAdmin(admin.ModelAdmin):
    """Read models are projections of events (`rebuild_projections` makes them again from the log): the admin reads
    them, never adds, changes or deletes one. A change the admin made would be no event, and the next rebuild would
    silently take it back; make it through the app (its pages or its API), which records it as an event
    (docs/operations.md, "The admin")."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Character)
class CharacterAdmin(ReadModelAdmin):
    list_display = ("name", "campaign", "player", "version", "alive", "conscious", "dying", "death_at")


@admin.register(Timer)
class TimerAdmin(ReadModelAdmin):
    list_display = ("character", "kind", "due", "priority", "key")


@admin.register(Job)
class JobAdmin(ReadModelAdmin):
    list_display = ("id", "campaign", "status", "from_time", "to_time", "progress", "events_appended")


@admin.register(Campaign)
class CampaignAdmin(ReadModelAdmin):
    """Its name and options change by `CampaignChanged` (the board's house rules, `PATCH /api/campaigns/{id}/`)."""

    list_display = ("name", "ruleset", "game_time", "created_at")


@admin.register(Membership)
class MembershipAdmin(ReadModelAdmin):
    """Members come by invitation and go from the members page, each change an entry of the campaign's log."""

    list_display = ("campaign", "user", "role")
