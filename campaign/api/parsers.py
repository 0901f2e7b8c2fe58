"""JSON that is too deep, too big or not JSON is refused with a 400 naming the body; text no database can store
(NUL, lone surrogates) with a 400 naming the field that carries it."""

import json
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from campaign.http.client_input import MAX_DEPTH, check_text, nesting, no_constants


class StrictJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: dict | None = None) -> Any:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise ParseError(f"body: the request body is larger than {limit} bytes")
        if not raw.strip():
            return {}
        try:
            data = json.loads(raw.decode("utf-8"), parse_constant=no_constants)
        except (ValueError, UnicodeDecodeError) as error:
            raise ParseError(f"body: expected a JSON object ({error})") from None
        except RecursionError:
            raise ParseError(f"body: JSON nested deeper than {MAX_DEPTH} levels") from None
        if nesting(data, MAX_DEPTH) > MAX_DEPTH:
            raise ParseError(f"body: JSON nested deeper than {MAX_DEPTH} levels")
        check_text(data)
        return data
