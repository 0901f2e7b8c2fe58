"""Dark Future: the alternate CON damage system for pedestrians and drivers."""

from rules.darkfuture import engine, events, forms, sheet, view
from rules.kernel import assemble

RULESET = assemble(
    title="Dark Future (alternate CON damage)",
    default_start="2020-01-01T00:00:00",
    engine=engine,
    view=view,
    forms=forms,
    sheet=sheet,
    events=events,
)
