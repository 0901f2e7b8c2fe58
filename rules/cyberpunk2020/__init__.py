"""Cyberpunk 2020 with the X-Com: Gray Dawn damage application."""

from rules.kernel import assemble

RULESET = assemble(
    __name__,
    title="Cyberpunk 2020: X-Com Gray Dawn damage",
    default_start="2020-01-01T00:00:00",
)
