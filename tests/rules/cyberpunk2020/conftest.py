"""Make the repository root importable when pytest runs without the Django plugin or an installed package
(`pytest -p no:django tests/rules/cyberpunk2020`): the test packages here have no `tests/__init__.py` above them."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[3])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
