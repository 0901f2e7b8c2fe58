"""gunicorn's settings for Wound Ledger, read from the working directory (`gunicorn campaign.wsgi` run in the
checkout; `-c gunicorn.conf.py` elsewhere); an option on the command line wins. docs/operations.md, "What gunicorn
answers itself".

gunicorn answers a few requests without the application: a request line or headers past the limits below (414,
431), a request it cannot parse (400). Its own answer was an HTML page of gunicorn's, where every other error of the
API is JSON and every page the site's: now a short sentence of plain text, naming the limit.
"""

from __future__ import annotations

from gunicorn import util

# The request line (method, path and query): gunicorn's default, 4,094 bytes; a page's longest query (the party's
# recovery with every what-if ticked) is under 1,000.
limit_request_line = 4094
# Headers: at most 100 of them, each at most 8,190 bytes (gunicorn's defaults; a browser sends about 15).
limit_request_fields = 100
limit_request_field_size = 8190
# A sync worker's request is ended past 30 s (the import's and the forecast's time boxes stay well inside it).
timeout = 30

_WORDS = {
    414: f"the request line (the address and its query) is longer than the server takes: {limit_request_line:,} bytes",
    431: (
        f"the request has more headers, or longer ones, than the server takes: {limit_request_fields} headers of"
        f" {limit_request_field_size:,} bytes"
    ),
}


def _plain_error(sock: object, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's `util.write_error`, in words and plain text: no HTML, no echo of the request."""
    body = (_WORDS.get(status_int) or f"{reason.lower()}: the server could not read the request") + "\n"
    data = body.encode()
    head = (
        f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(data)}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + data)


# The workers call `util.write_error` by its module's name; they are forked from the process that read this file.
util.write_error = _plain_error
