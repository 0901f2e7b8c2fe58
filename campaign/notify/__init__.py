"""Out of the game: what the ledger tells a phone or a channel when something happens (docs/notifications.md).

`outbox`: the deliveries written with the events they speak of, for each target (a hook, a device); `words`: what
they say, per audience; `deliver`: the Celery task and the senders (Discord, a signed webhook, Web Push); `push`: the
VAPID key, who is told of what, one encrypted message; `ssrf`: where a notification may be sent.
"""
