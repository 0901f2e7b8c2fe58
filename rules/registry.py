"""The registry of the rulesets: each folder's `RULESET`, by slug. A fourth ruleset is one more import here."""

from __future__ import annotations

from rules.cyberpunk2020 import RULESET as CYBERPUNK2020
from rules.darkfuture import RULESET as DARKFUTURE
from rules.params import RuleError
from rules.ruleset import Ruleset
from rules.shadowrun2 import RULESET as SHADOWRUN2
from rules.text import given

REGISTRY: dict[str, Ruleset] = {ruleset.slug: ruleset for ruleset in (SHADOWRUN2, CYBERPUNK2020, DARKFUTURE)}


def all_rulesets() -> list[Ruleset]:
    """Every ruleset, in the order listed here (the first is the new-campaign form's default)."""
    return list(REGISTRY.values())


def ruleset_slugs() -> list[str]:
    return sorted(REGISTRY)


def get_ruleset(slug: str) -> Ruleset:
    """The ruleset registered under `slug`; RuleError listing the valid ones otherwise."""
    try:
        return REGISTRY[slug]
    except (KeyError, TypeError):
        raise RuleError(
            "ruleset", f"unknown ruleset {given(slug)}; expected one of: {', '.join(sorted(REGISTRY))}"
        ) from None
