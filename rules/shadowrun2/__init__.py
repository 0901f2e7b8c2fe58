"""Shadowrun 2nd Edition: the Critical Hit System."""

from rules.kernel import assemble

RULESET = assemble(
    __name__,
    title="Shadowrun 2nd Edition: Critical Hit System",
    default_start="2053-01-01T00:00:00",
)
