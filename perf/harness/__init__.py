"""The bottom layer of perf/: what the bench's rows and the load tests share.

- `databases`: throwaway databases (a row's SQLite scratch folder, PostgreSQL copies, a served copy of the app);
- `servers`: gunicorn on loopback, free ports, a Celery worker, the CPU a server's processes spent;
- `seeding`: users, campaigns, characters, their histories and states, the action plans and the board's table;
- `mixes`: what each ruleset's `bench.py` declares for the rows to play;
- `raw`: what the project's path wrote, read back as plain rows for a raw driver to write again;
- `peers`: what an action over HTTP is compared with (a minimal DRF app, a bare WSGI function);
- `wsgi`: requests through the app's WSGI handler in this process, without a server;
- `measure`: profiling, CPU and wall time, quantiles, the machine's load and the figures written out as JSON.

Nothing here imports a row or a load test. Importing this package imports nothing: gunicorn serves
`perf.harness.peers:application` without Django.
"""
