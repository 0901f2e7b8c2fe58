from django.urls import path

from campaign.web import views

urlpatterns = [
    path("", views.home, name="home"),
]
