"""The push API's answers (docs/notifications.md), as the OpenAPI schema declares them: a post-processing hook
of their own puts them beside `answers.COMPONENTS`."""

from __future__ import annotations

from typing import Any

from rules.answer_schema import INT, array, obj

PUBLIC_KEY = "BBnV9XJq-UJ7_PHEeEJLuWq8172oIix5DC3sqqaCVOCh0MrjvinTRjXNBN1Y14OoA5ijBtDBJNAdeiEhSssXySo"
EXAMPLES = {
    "PushKey": {"public_key": PUBLIC_KEY},
    "PushSubscription": {
        "id": 3,
        "endpoint": "https://push.example.net/wpush/v2/gAAAAABh",
        "campaigns": [],
        "created_at": "2026-12-01T20:15:00+00:00",
    },
}
REQUEST = {
    "endpoint": "https://push.example.net/wpush/v2/gAAAAABh",
    "keys": {"p256dh": PUBLIC_KEY, "auth": "Vd0bSDOk4lBL3-IkTBbrXg"},
}
COMPONENTS: dict[str, dict[str, Any]] = {
    "PushKey": obj(
        {
            "public_key": {
                "type": "string",
                "description": "the server's VAPID public key, an uncompressed P-256 point in base64url: the "
                "`applicationServerKey` of PushManager.subscribe()",
            }
        }
    ),
    "PushSubscription": obj(
        {
            "id": INT,
            "endpoint": {"type": "string", "description": "the push service's URL for the device"},
            "campaigns": array(
                INT, "the campaigns whose every character the device is told of (a GM's opt-in)"
            ),
            "created_at": {"type": "string", "format": "date-time"},
        },
        description="one device of the caller's, told of the characters they play (and, for a GM, of every "
        "character of the campaigns named)",
    ),
}
for _name, _example in EXAMPLES.items():
    COMPONENTS[_name]["example"] = _example


def add_components(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular's post-processing hook: the push answers' components into the schema."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in COMPONENTS.items():
        schemas.setdefault(name, schema)
    return result
