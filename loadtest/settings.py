"""The project settings with STATIC_ROOT moved into the load test's temporary directory (DEBUG-off needs a manifest)."""

import os

from campaign.settings import *  # noqa: F403

STATIC_ROOT = os.environ["LOADTEST_STATIC_ROOT"]
