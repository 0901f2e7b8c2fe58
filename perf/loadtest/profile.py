"""Profile one character read in-process with pyinstrument, on a database kept by `perf/loadtest/run.py --keep`.

    STATIC_ROOT=<kept dir>/static DATABASE_URL=sqlite:////tmp/wl-load-N.sqlite3 \\
        .venv/bin/python perf/loadtest/profile.py page|poll|api|api-poll CHARACTER_ID [--repeat 20] [--html out.html]

`poll` is the page's live region asking with its ETag (a 304 when nothing changed), `api-poll` the same for the API.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=("page", "poll", "api", "api-poll"))
    parser.add_argument("character", type=int)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--html")
    parser.add_argument("--all", action="store_true", help="show library frames too")
    parser.add_argument(
        "--cold", action="store_true", help="empty the rendered-reads cache before each request"
    )
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "campaign.settings")
    os.environ.setdefault("DEBUG", "0")
    os.environ.setdefault("SECRET_KEY", "load-test")
    os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,testserver")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.test import Client
    from pyinstrument import Profiler

    from perf.harness.seeding import api_token

    gm = User.objects.get(username="gm")
    client = Client()
    if args.what in ("page", "poll"):
        client.force_login(gm)
        url, headers = f"/characters/{args.character}/", {}
        if args.what == "poll":
            headers = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "live", "HTTP_HX_TRIGGER": "live"}
    else:
        url = f"/api/characters/{args.character}/"
        headers = {"HTTP_AUTHORIZATION": f"Token {api_token(gm)}"}
    first = client.get(url, **headers)
    assert first.status_code == 200
    if args.what.endswith("poll") and not args.cold:
        headers["HTTP_IF_NONE_MATCH"] = first["ETag"]
        assert client.get(url, **headers).status_code == 304
    profiler = Profiler(interval=0.0005)
    from django.core.cache import caches

    with profiler:
        for _ in range(args.repeat):
            if args.cold:
                caches["pages"].clear()
            client.get(url, **headers)
    print(profiler.output_text(unicode=True, color=False, show_all=args.all))
    if args.html:
        Path(args.html).write_text(profiler.output_html())
    return 0


if __name__ == "__main__":
    sys.exit(main())
