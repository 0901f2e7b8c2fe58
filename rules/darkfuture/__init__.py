"""Dark Future: the alternate CON damage system for pedestrians and drivers."""

from rules.kernel import assemble

RULESET = assemble(
    __name__,
    title="Dark Future (alternate CON damage)",
    default_start="2020-01-01T00:00:00",
)
