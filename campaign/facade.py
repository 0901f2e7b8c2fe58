"""A package read, and patched, as the one module it was split from.

`campaign.services` and `campaign.transfer` were one module each; their packages re-export the names their callers
use, so `services.character_act(...)` reads as it did. Setting a name on such a package (a test's
`monkeypatch.setattr(services, "Dice", ...)`) sets it too in each of the package's modules that held the same
object under that name, so the code that uses it sees the new one, as in the one module; undoing the patch
undoes it there. Nothing else is changed: a module's own names stay its own.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

_MISSING = object()


class Facade(ModuleType):
    def __setattr__(self, name: str, value: Any) -> None:
        old = self.__dict__.get(name, _MISSING)
        super().__setattr__(name, value)
        if old is _MISSING or isinstance(old, ModuleType):
            return
        prefix = f"{self.__name__}."
        for module in list(self.__dict__.values()):
            if (
                isinstance(module, ModuleType)
                and module.__name__.startswith(prefix)
                and module.__dict__.get(name, _MISSING) is old
            ):
                setattr(module, name, value)


def facade(name: str) -> None:
    """Make the package `name` (its `__init__` calls this with `__name__`) a Facade."""
    sys.modules[name].__class__ = Facade
