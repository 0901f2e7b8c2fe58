# Two commands set everything up on a fresh machine with Python 3.11+: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-eventstore-sqlite test-plain-orm lint format bench fuzz migrate demo worker clean lighthouse

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

migrate: $(STAMP)
	$(BIN)/python manage.py migrate --noinput

demo: migrate
	$(BIN)/python manage.py seed_demo

## make run: install, migrate, load the demo campaign, serve on http://127.0.0.1:8000 (SQLite, in-process Celery)
run: demo
	$(BIN)/python manage.py runserver 127.0.0.1:8000

## make test: lint (ruff; vulture: no dead code), the OpenAPI schema validated (warnings fail), then the whole
## suite (set DATABASE_URL and REQUIRE_SERVICES=1 to run it on PostgreSQL/Redis)
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/vulture
	$(BIN)/python manage.py spectacular --validate --fail-on-warn --file /dev/null
	$(BIN)/pytest -p no:cacheprovider -rfEs -n 2

## the event-store guarantees again on SQLite (its triggers differ from PostgreSQL's)
test-eventstore-sqlite: $(STAMP)
	DATABASE_URL=sqlite:///$(CURDIR)/db-eventstore.sqlite3 $(BIN)/pytest -p no:cacheprovider -rfEs tests/ledger/test_eventstore.py tests/ledger/test_import_beside.py

## the event-store, import and action tests and the recorded answers again with every speed trick switched to its plain
## Django ORM way (LEDGER_PLAIN_ORM, campaign/ledger/fast.py), on the database DATABASE_URL names. Not test_query_counts:
## its budgets count the one-statement read and write, which the ORM's plain way sends as several statements.
PLAIN_ORM_TESTS := tests/ledger/test_eventstore.py tests/ledger/test_import_beside.py tests/transfer/test_import.py \
	tests/api/test_shadowrun2.py tests/api/test_cyberpunk2020.py tests/api/test_darkfuture.py \
	tests/api/test_recorded_answers.py
test-plain-orm: $(STAMP)
	LEDGER_PLAIN_ORM=1 $(BIN)/pytest -p no:cacheprovider -rfEs $(PLAIN_ORM_TESTS)

## schemathesis against a real gunicorn, as a GM and a player: no 5xx, every answer's status, content type, headers and
## body as the schema declares (CI runs it after the suite; FUZZ_EXAMPLES, SEED to vary)
fuzz: $(STAMP)
	SEED=$${SEED:-20261129} sh tests/fuzz/run_schemathesis.sh $${FUZZ_EXAMPLES:-15}

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/vulture

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

## the bench makes throwaway databases of its own; it never touches db.sqlite3
bench: $(STAMP)
	$(BIN)/python manage.py bench

## npm's Lighthouse for the bench's lighthouse row and tests/browser/test_lighthouse.py (its lock file; no browser)
lighthouse:
	PUPPETEER_SKIP_DOWNLOAD=1 npm ci --prefix perf/lighthouse --no-audit --no-fund

worker: $(STAMP)
	$(BIN)/celery -A campaign worker --loglevel=info

clean:
	rm -rf $(VENV) db.sqlite3* test-db*.sqlite3* db-eventstore.sqlite3* staticfiles
