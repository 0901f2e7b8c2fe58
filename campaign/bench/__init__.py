"""The benchmark behind `manage.py bench`: each DESIGN.md target measured as a ratio against its baseline.

`campaign.bench.rows` holds the workloads; each runs in a child process whose DATABASE_URL names a throwaway
database, so the developer's db.sqlite3 is never touched.
"""
