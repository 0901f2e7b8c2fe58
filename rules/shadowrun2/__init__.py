"""Shadowrun 2nd Edition: the Critical Hit System."""

from rules.kernel import assemble
from rules.shadowrun2 import engine, events, forms, sheet, view

RULESET = assemble(
    title="Shadowrun 2nd Edition: Critical Hit System",
    default_start="2053-01-01T00:00:00",
    engine=engine,
    view=view,
    forms=forms,
    sheet=sheet,
    events=events,
)
