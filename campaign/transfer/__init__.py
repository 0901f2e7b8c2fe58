"""Export a campaign as JSON Lines (one event per line, in global order) and import it as a new campaign.

Streams are written as `campaign` and `character:<id in the file>`; import gives the characters new ids and
replays the log into fresh read models, so the imported characters end in the same states. Players, members,
the file's idempotency keys and jobs are not part of the log and are not carried over: the importer becomes the GM.
The log's history of members (invitations, who joined, left or was removed, CharacterChanged of a character handed
to a GM) comes along as history, user names as text: they name people of the server the file was written on.

An export ends with a trailer: the count and the SHA-256 of the lines before it. An import refuses a file whose
trailer is missing or does not match (cut short, or changed by hand), then checks every line before anything is
written (`check_file`), in one pass: the envelope, each event against its ruleset's description
(`rules/<slug>/events.py`), game times, versions, positions and undos, and a replay of every character through the
ruleset with the replayed state's ranges checked after each event. Each refusal names the line and the field. The
checked file is then written by an `ImportJob` (`import_run`) in batches, the events in bulk as the check kept them
(`check_file(..., events=True)`: the file is parsed once); the read models are what the check's replay gave (it is
the rebuild's fold), written by the rebuild's own write (`write_read_models`).

Modules: `export` (the lines and the trailer), `checks` (`check_file`), `importing` (the job: `import_request`,
`import_run`, `import_fail`, `import_file`). Every public name a caller uses is re-exported here; a module's own
names (`importing.BATCH`, `importing._write_batch`) stay its own.
"""

from __future__ import annotations

from campaign.transfer.checks import (
    ANY_OBJECT,
    ANY_VALUE,
    CAMPAIGN_EVENTS,
    ENVELOPE,
    HANDED,
    LIMITS,
    ROLE,
    TRAILER_EXPECTED,
    USERNAME,
    AnyValue,
    CheckedFile,
    GameTime,
    check_file,
)
from campaign.transfer.export import FORMAT, export_lines, export_text
from campaign.transfer.importing import (
    IMPORT_FAILED,
    file_bytes,
    import_fail,
    import_file,
    import_request,
    import_run,
)

__all__ = [
    "FORMAT",
    "export_lines",
    "export_text",
    "ANY_OBJECT",
    "ANY_VALUE",
    "AnyValue",
    "CAMPAIGN_EVENTS",
    "CheckedFile",
    "ENVELOPE",
    "GameTime",
    "HANDED",
    "LIMITS",
    "ROLE",
    "TRAILER_EXPECTED",
    "USERNAME",
    "check_file",
    "IMPORT_FAILED",
    "file_bytes",
    "import_fail",
    "import_file",
    "import_request",
    "import_run",
]
