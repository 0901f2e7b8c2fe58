#!/bin/sh
# Fuzz the API with schemathesis (v4): a throwaway SQLite database, a seeded GM and player with tokens, a campaign
# and a character of each ruleset, gunicorn on loopback; three passes: the GM with generated ids, the GM with the
# seeded ones, the player with the seeded ones. Every answer is checked against the schema (docs/api.md): no 5xx, a
# status, content type, headers and body the operation declares. Exits non-zero on any failure (schemathesis's exit
# code, or a server-side traceback in the log). See docs/PERFORMANCE.md, "Fuzzing".
#
#   tests/fuzz/run_schemathesis.sh [MAX_EXAMPLES]      (default 50 per operation; SEED=n for a fixed seed)
set -eu
cd "$(dirname "$0")/../.."
MAX_EXAMPLES="${1:-50}"
WORK="$(mktemp -d /tmp/wl-fuzz-XXXXXX)"
PORT="$(.venv/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
export DATABASE_URL="sqlite:///$WORK/db.sqlite3" DEBUG=0 SECRET_KEY=fuzz ALLOWED_HOSTS=127.0.0.1 \
    LOGIN_THROTTLE=100000/min LOG_LEVEL=WARNING
SERVER=""
cleanup() {
    if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
    if [ -z "${KEEP:-}" ]; then rm -rf "$WORK"; else echo "kept $WORK"; fi
}
trap cleanup EXIT INT TERM

.venv/bin/python manage.py migrate --noinput -v 0
# DEBUG=0 serves static files from the manifest, as in production: the 403/404 pages name them.
.venv/bin/python manage.py collectstatic --noinput -v 0
SEEDED="$(.venv/bin/python manage.py shell -v 0 -c '
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from campaign import services
from rules.params import RuleError
from campaign.models import PLAYER, Membership
gm = User.objects.create_user("gm", password="fuzz-password-1")
player = User.objects.create_user("player", password="fuzz-password-2")
attributes = {"shadowrun2": {"body": 5}, "cyberpunk2020": {"body": 6, "armor": {}}, "darkfuture": {"con": 10}}
for slug in ("shadowrun2", "cyberpunk2020", "darkfuture"):
    campaign = services.campaign_create(user=gm, name=slug, ruleset=slug)
    Membership.objects.create(campaign=campaign, user=player, role=PLAYER)  # as an accepted invitation
    try:
        c = services.character_create(campaign=campaign, actor="gm", name="Fuzz", player="player",
                                      attributes=attributes[slug])
    except RuleError:
        c = services.character_create(campaign=campaign, actor="gm", name="Fuzz", player="player")
    services.character_act(character_id=c.pk, body={"type": "note", "text": "seed"}, actor="gm")
    if slug == "shadowrun2":
        job = services.clock_advance_request(campaign=campaign, seconds=60, actor="gm")
        ids = (campaign.pk, c.pk, job.pk)
print(Token.objects.create(user=gm).key, Token.objects.create(user=player).key, *ids)
')"
set -- $SEEDED
TOKEN="$1" PLAYER_TOKEN="$2" CAMPAIGN_ID="$3" CHARACTER_ID="$4" JOB_ID="$5"
# The second pass binds the ids to the seeded Shadowrun campaign, character and clock job, so that the operations under them
# are reached with generated bodies and queries (with generated ids most of them only ever answer 404).
cat >"$WORK/seeded.toml" <<TOML
[parameters]
"path.campaign_id" = $CAMPAIGN_ID
"path.character_id" = $CHARACTER_ID
"path.job_id" = "$JOB_ID"
TOML

.venv/bin/gunicorn campaign.wsgi -w 2 -b "127.0.0.1:$PORT" --timeout 60 >"$WORK/server.log" 2>&1 &
SERVER=$!
# Ready when /readyz says so (the database answers, every migration applied: docs/operations.md), not after a sleep.
.venv/bin/python - "$PORT" <<'PY'
import json, sys, time, urllib.error, urllib.request

url, deadline, last = f"http://127.0.0.1:{sys.argv[1]}/readyz", time.monotonic() + 120, "no answer"
while time.monotonic() < deadline:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            sys.exit(0)
    except urllib.error.HTTPError as refused:
        last = json.loads(refused.read() or b"{}")
    except OSError as error:
        last = str(error)
    time.sleep(0.2)
sys.exit(f"gunicorn is not ready after 120 s: {last}")
PY

STATUS=0
fuzz() {  # fuzz TOKEN [schemathesis options before `run`]
    AS="$1"
    shift
    .venv/bin/schemathesis "$@" run "http://127.0.0.1:$PORT/api/schema/" \
        --header "Authorization: Token $AS" \
        --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
        --max-examples "$MAX_EXAMPLES" \
        ${SEED:+--seed "$SEED"} \
        --request-timeout 30 \
        --continue-on-failure \
        --generation-database none \
        --report junit --report-dir "$WORK/report" \
        --no-color || STATUS=$?
}
echo "--- pass 1: the GM, generated ids ---"
fuzz "$TOKEN"
echo "--- pass 2: the GM, the seeded campaign $CAMPAIGN_ID, character $CHARACTER_ID and clock job $JOB_ID ---"
fuzz "$TOKEN" --config-file "$WORK/seeded.toml"
echo "--- pass 3: the player, the same seeded ids ---"
fuzz "$PLAYER_TOKEN" --config-file "$WORK/seeded.toml"

if grep -q "Internal Server Error\|Traceback" "$WORK/server.log"; then
    echo "--- server-side errors (gunicorn log) ---"
    cat "$WORK/server.log"
    [ "$STATUS" -ne 0 ] || STATUS=1
fi
exit "$STATUS"
