"""The benchmark behind `manage.py bench` and the load tests run by hand (docs/PERFORMANCE.md), in three layers.

- `perf.harness`, at the bottom: throwaway databases, servers (gunicorn, ports, a Celery worker), seeding, the
  rulesets' mixes, the raw side of a comparison, profiling, timing and the figures written out. It imports the app
  and nothing else of perf/.
- `perf.rows`: one module per row of the bench, each importing only the harness and the app, never another row;
  `perf.rows.ROWS` names them. Each runs in a child process whose DATABASE_URL names a throwaway database, so the
  developer's db.sqlite3 is never touched.
- `perf.loadtest`: what is run by hand (wrk's readers, the forecast flood, profiles of one read or one action),
  on the harness's tools.

tests/architecture/test_architecture.py holds perf/ to this: no import cycle, rows import the harness and never
each other.
"""
