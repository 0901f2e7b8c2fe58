"""What vulture (`make lint`) takes for dead code but Django, DRF, drf-spectacular, Celery, django-csp, pytest or a
template reads by its name. Each line uses a name; vulture's settings are in pyproject.toml ([tool.vulture]).
A name here is kept for every file, so only names a framework calls belong here, never a module's own."""

from types import SimpleNamespace

_ = SimpleNamespace()

# Django: models' Meta and fields only the database reads, admin classes, management commands, apps, URL
# converters and the 404 handler (named in campaign/urls.py), form widgets' hooks, class-based views' settings,
# the database backend's hook, migrations' helpers (the migrations are not scanned).
_.Meta, _.ordering, _.indexes, _.abstract, _.default_auto_field, _.CampaignConfig
_.answered_at, _.started_at, _.is_staff
_.next_try_at, _.claimed_until, _.sent_at  # the outbox's columns, read by the ORM's filters by name
_.login_form, _.list_display, _.list_filter, _.search_fields
_.has_add_permission, _.has_change_permission, _.has_delete_permission
_.Command, _.add_arguments, _.handle
_.urlpatterns, _.handler404, _.not_found, _.regex, _.to_url
_.widget, _.value_from_datadict, _.value_omitted_from_data
_.form_class, _.template_name, _.redirect_authenticated_user, _.http_method_names
_._start_transaction_under_autocommit
_.run_for_vendor, _.apps
# Middleware, authentication backend and parser named in campaign/settings.py; django-csp reads csp_nonce.
_.ServicesDown, _.AnswerBeforeCommit, _.ContentSecurityPolicy, _.process_exception, _.csp_nonce
_.ThrottledModelBackend, _.StrictJSONParser
# DRF's and drf-spectacular's hooks (the post-processing hooks are named in SPECTACULAR_SETTINGS).
_.parser_context, _.get_cache_key, _.authenticate_credentials, _.add_components, _.generator
_.add_retry_after
# Attributes the templates read (templates/ is not scanned).
_.typed, _.pool_value, _.undo_text, _.undo_version, _.unit_input, _.help_line, _.quick, _.quick_value, _.focus
_.quick_error
_.plot_width, _.lane_height, _.whisker_to, _.end_x, _.end_y, _.mid_y, _.now_x, _.party_title, _.caption
# The WSGI applications gunicorn serves by name (campaign.wsgi; the bench's bare floor, perf.harness.peers).
_.application
# pytest: module markers, fixtures asked for by name, settings and clients' attributes the tests set, the
# HTMLParser hooks of the tests' parsers, a signal receiver's sender.
_.pytestmark, _.django_db_setup, _.transactional_db, _.PASSWORD_HASHERS, _.raise_request_exception
_._pool, _._producer_pool, _.handle_starttag, _.handle_endtag, _.handle_data, _.handle_startendtag, _.sender
# http.server's hooks of the tests' fake receivers (tests/notify/fakes.py, fake_push.py).
_.do_POST, _.log_message
