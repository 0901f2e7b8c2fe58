"""Cyberpunk 2020 with the X-Com: Gray Dawn damage application."""

from rules.cyberpunk2020 import engine, events, forms, sheet, view
from rules.kernel import assemble

RULESET = assemble(
    title="Cyberpunk 2020: X-Com Gray Dawn damage",
    default_start="2020-01-01T00:00:00",
    engine=engine,
    view=view,
    forms=forms,
    sheet=sheet,
    events=events,
)
