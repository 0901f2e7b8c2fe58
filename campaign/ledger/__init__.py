"""The ledger: the append-only event log and what is folded from it, the one place a row becomes an event.

`eventstore` appends to and reads the log, `projections` keep the read models in the same transaction, `secrecy` says
which events a player's history shows, `events` names the campaign stream's own events; `backends` are the database
backends the command path runs on, `migration_sql` the vendor SQL of the log's triggers and functions.
"""
