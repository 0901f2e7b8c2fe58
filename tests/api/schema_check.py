"""Every answer checked against the OpenAPI schema: its status is one the operation declares, its content type
too, each declared header it sends fits its schema, and its body fits the declared schema (OpenAPI 3.0's `nullable` read as JSON Schema's null)."""

from __future__ import annotations

import re
from typing import Any

import jsonschema


def as_json_schema(schema: Any) -> Any:
    """OpenAPI 3.0's schema dialect as JSON Schema (draft 7): `nullable` is a null alternative."""
    if isinstance(schema, list):
        return [as_json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        key: as_json_schema(value) for key, value in schema.items() if key not in ("discriminator", "example")
    }
    if out.pop("nullable", False):
        if "type" in out and "enum" not in out:
            out["type"] = [out["type"], "null"]
        else:
            return {"anyOf": [out, {"type": "null"}]}
    return out


class SchemaCheck:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.components = as_json_schema(schema["components"])
        self.paths = [
            (re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", path) + "$"), path)
            for path in sorted(schema["paths"], key=lambda path: path.count("{"))  # literal segments first
        ]
        self.checked: set[tuple[str, str, int]] = set()

    def operation(self, path: str, method: str) -> tuple[str, dict[str, Any]]:
        for pattern, template in self.paths:
            if pattern.match(path):
                return template, self.schema["paths"][template][method.lower()]
        raise AssertionError(f"{method} {path}: no such operation in the schema")

    def check(self, response: Any) -> None:
        """Raise AssertionError unless the Django test `response` is one its operation declares."""
        request = response.wsgi_request
        method, path = request.method, request.path
        template, operation = self.operation(path, method)
        status = response.status_code
        declared = operation["responses"].get(str(status))
        assert declared is not None, (
            f"{method} {path}: {status} is not declared ({sorted(operation['responses'])})"
        )
        self.checked.add((template, method, status))
        self.check_headers(f"{method} {path} {status}", declared.get("headers", {}), response)
        content = declared.get("content")
        if not content:
            assert not response.content, (
                f"{method} {path}: {status} declares no body, got {response.content[:200]!r}"
            )
            return
        media = response["Content-Type"].split(";")[0].strip()
        assert media in content, f"{method} {path}: {status} answered {media}, declared {sorted(content)}"
        if media != "application/json":
            return
        # The body's schema at the root of a document holding the components, which its references name.
        schema = {**as_json_schema(content[media]["schema"]), "components": self.components}
        validator = jsonschema.Draft7Validator(schema)
        errors = sorted(validator.iter_errors(response.json()), key=lambda error: list(error.absolute_path))
        assert not errors, f"{method} {path} {status}: " + "; ".join(
            f"{'/'.join(map(str, error.absolute_path))}: {error.message[:300]}" for error in errors[:5]
        )

    def check_headers(self, where: str, declared: dict[str, Any], response: Any) -> None:
        """Each declared header present fits its schema (an integer's text read as one, as schemathesis does);
        a required one is present."""
        for name, header in declared.items():
            if not response.has_header(name):
                assert not header.get("required"), f"{where}: no {name} header"
                continue
            value: Any = response[name]
            if header["schema"].get("type") == "integer":
                assert value.isdigit(), f"{where}: {name} {value!r} is not a whole number"
                value = int(value)
            errors = list(jsonschema.Draft7Validator(as_json_schema(header["schema"])).iter_errors(value))
            assert not errors, f"{where}: {name} {value!r}: {errors[0].message}"
