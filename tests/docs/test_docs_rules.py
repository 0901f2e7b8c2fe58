"""docs/rules/ says what the code does: its data tables are `rules/<slug>/tables.py`'s, row for row, and each page
names every option its ruleset declares (issue 41: the rules are described in the repository, in its own words)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rules import options as shared_options
from rules.cyberpunk2020 import options as cp_options
from rules.cyberpunk2020 import tables as cp
from rules.darkfuture import options as df_options
from rules.darkfuture import tables as df
from rules.shadowrun2 import options as sr_options
from rules.shadowrun2 import tables as sr

PAGES = Path(__file__).resolve().parents[2] / "docs" / "rules"
LEVELS = {"Light": "L", "Moderate": "M", "Serious": "S", "Deadly": "D"}


def table(page: str, header: str) -> list[list[str]]:
    """The rows of the Markdown table of `page` whose header row is `header` (indented or not), each a list of its
    cells, stripped; the header and the rule under it left out."""
    lines = [line.strip() for line in (PAGES / page).read_text().splitlines()]
    start = lines.index(header) + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def span(text: str) -> tuple[int, int]:
    """ "3-5" -> (3, 5); "10" -> (10, 10)."""
    low, _, high = text.partition("-")
    return int(low), int(high or low)


def test_shadowrun_critical_hit_table() -> None:
    rows = table("shadowrun2.md", "| table | 1d6 | part | reason | time | diagnose |")
    documented = {
        (name, int(die)): (part, reason, time, int(diagnose.rstrip("*")), diagnose.endswith("*"))
        for name, die, part, reason, time, diagnose in rows
    }
    code = {
        (name, die): entry
        for name, entries in sr.CRITICAL_HIT_TABLE.items()
        for die, entry in entries.items()
    }
    assert documented == code


def test_shadowrun_hit_location_body_check_and_lethality() -> None:
    locations = {}
    for faces, location, name in table("shadowrun2.md", "| 2d6 | location | table |"):
        for face in faces.split(", "):
            locations[int(face)] = location.replace(" ", "_")
        assert sr.TABLE_FOR_LOCATION[location.replace(" ", "_")] == name
    assert locations == sr.HIT_LOCATION

    rows = table("shadowrun2.md", "| wound | TN, standard (default) | TN, gentle |")
    assert {LEVELS[wound]: int(tn) for wound, tn, _ in rows} == sr.BODY_CHECK_TN["standard"]
    assert {LEVELS[wound]: int(tn) if tn.isdigit() else None for wound, _, tn in rows} == sr.BODY_CHECK_TN[
        "gentle"
    ]

    rows = table(
        "shadowrun2.md", "| Body-check successes | lethality | the hit's monitor | its level and modifier |"
    )
    assert {int(successes): lethality.lower() for successes, lethality, _, _ in rows[:3]} == (
        sr.LETHALITY_BY_SUCCESSES
    )
    assert {
        lethality.lower(): int(boxes.split()[0]) for _, lethality, boxes, _ in rows[:3]
    } == sr.CRITICAL_HIT_BOXES
    assert rows[3][:2] == [f"{len(sr.LETHALITY_BY_SUCCESSES)} or more", "no critical hit"]


def test_shadowrun_monitor_levels_treatment_and_healing() -> None:
    for boxes, level, modifier in table("shadowrun2.md", "| boxes | level | TN modifier |"):
        low, high = span(boxes)
        code = {sr.LEVEL_BY_BOXES[box] for box in range(low, high + 1)}
        assert code == {LEVELS.get(level.split(" (")[0])}
        assert sr.LEVEL_MODIFIER[code.pop()] == int(modifier)

    times = {"10 minutes": 10 * sr.MINUTE, "20 minutes": 20 * sr.MINUTE}
    rows = table("shadowrun2.md", "| lethality | TN | base time |")
    assert {name.lower(): {"tn": int(tn), "base_seconds": times[base]} for name, tn, base in rows} == (
        sr.TREATMENT_TABLE
    )

    times = {"30 days": 30 * sr.DAY, "20 days": 20 * sr.DAY, "10 days": 10 * sr.DAY, "24 hours": 24 * sr.HOUR}
    rows = table("shadowrun2.md", "| level | TN | base time | boxes after the stage |")
    assert {
        LEVELS[level]: {"tn": int(tn), "base_seconds": times[base], "to_boxes": int(after)}
        for level, tn, base, after in rows
    } == sr.PHYSICAL_HEALING

    rows = dict(table("shadowrun2.md", "| condition | modifier |"))
    assert int(rows["not in hospital"]) == sr.NATURAL_HEALING_NOT_IN_HOSPITAL
    assert int(rows["never treated by a medic or magic"]) == sr.NATURAL_HEALING_NOT_TREATED
    assert int(rows["improperly treated (instead of the +4)"]) == sr.NATURAL_HEALING_IMPROPERLY_TREATED
    body = {}
    for low, high, modifier in sr.NATURAL_HEALING_BODY:
        body[f"Body {low}-{high}" if high else f"Body {low} or more"] = modifier
    assert {name: int(value) for name, value in rows.items() if name.startswith("Body")} == body


def test_cyberpunk_btm_and_wound_track() -> None:
    rows = table("cyberpunk2020.md", "| Body | BTM |")
    documented = []
    for body, btm in rows:
        if body.endswith(" or more"):
            documented.append((int(body.split()[0]), None, int(btm)))
        else:
            documented.append((*span(body), int(btm)))
    assert documented == list(cp.BTM_BY_BODY)

    rows = table("cyberpunk2020.md", "| points | level | stun save penalty | death save penalty |")
    assert [
        (*span(points), level.lower().replace(" ", "_"), int(stun)) for points, level, stun, _ in rows
    ] == list(cp.WOUND_LEVELS)
    mortal = [int(death) for *_, death in rows if death != "(not mortal)"]
    assert mortal == [-level for level in range(7)]


def test_cyberpunk_hit_location_models() -> None:
    rows = table(
        "cyberpunk2020.md",
        "| roll | `standard` (d10, default) | `d8` (a d8 on the standard table) | `modified` (d10) |",
    )
    faces = []
    for roll, standard, d8, modified in rows:
        low, high = span(roll)
        for face in range(low, high + 1):
            faces.append(face)
            assert cp.STANDARD_D10[face][1] == standard
            assert (cp.D8[face][1] if face in cp.D8 else "") == d8
            location, part = cp.MODIFIED_D10[face]
            if location == cp.LEG_NEEDS_SIDE:
                assert modified.startswith("a leg (groin, upper thigh)")
            elif part == location.replace("_", " "):
                assert modified == part
            else:
                assert modified == f"{location} ({part})"
    assert faces == sorted(cp.STANDARD_D10)


def test_dark_future_pedestrian_critical_table() -> None:
    rows = table("darkfuture.md", "| result | CON lost |")
    assert rows[0] == [f"{df.CRITICAL_TABLE[0][1]} or less", f"{df.CRITICAL_TABLE[0][2]} (near miss)"]
    assert [(*span(result), int(lost)) for result, lost in rows[1:6]] == list(df.CRITICAL_TABLE[1:])
    continued = [(*span(result), int(lost)) for result, lost in rows[6:8]]
    assert continued == [
        (
            df.CONTINUATION_FROM + step * df.CONTINUATION_STEP,
            df.CONTINUATION_FROM + (step + 1) * df.CONTINUATION_STEP - 1,
            df.CONTINUATION_CON_LOST + step,
        )
        for step in range(2)
    ]


def test_dark_future_bands_skills_and_effects() -> None:
    columns = (df.BAND_01, df.BAND_26, df.BAND_51, df.BAND_76)
    rows = table("darkfuture.md", "| initial CON | 01-25% | 26-50% | 51-75% | 76%+ |")
    documented = {
        int(con): {
            band: None if cell == "-" else span(cell) for band, cell in zip(columns, cells, strict=True)
        }
        for con, *cells in rows
    }
    assert documented == df.BANDS_BY_INITIAL_CON

    half, quarter = table("darkfuture.md", "| rating | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 |")
    assert [int(value) for value in half[1:]] == [df.SKILL_HALF_TABLE[rating] for rating in range(1, 11)]
    assert [int(value) for value in quarter[1:]] == [
        df.SKILL_QUARTER_TABLE[rating] for rating in range(1, 11)
    ]

    rows = table(
        "darkfuture.md",
        "| band | skill | move | rolled on every wound taken in this band | drivers' safety limit |",
    )
    assert [skill for _, skill, *_ in rows] == [df.BAND_EFFECTS[band]["skill"] for band in df.BANDS]
    moves = {"-0": (1, 1), "3/4": (3, 4), "1/2": (1, 2), "-": (0, 1)}
    assert [moves[move] for _, _, move, *_ in rows] == [df.BAND_EFFECTS[band]["move"] for band in df.BANDS]
    limits = [int(limit.split()[0]) if limit.endswith("mph") else None for *_, limit in rows]
    assert limits == [df.BAND_EFFECTS[band]["safety_limit_mph"] for band in df.BANDS]


@pytest.mark.parametrize(
    ("page", "declarations"),
    [
        ("shadowrun2.md", sr_options.OPTIONS),
        ("cyberpunk2020.md", cp_options.OPTIONS),
        ("darkfuture.md", df_options.OPTIONS),
        ("README.md", shared_options.SHARED),
    ],
)
def test_each_page_names_every_option_its_ruleset_declares(page: str, declarations: tuple) -> None:
    text = (PAGES / page).read_text()
    assert [setting.name for setting in declarations if f"`{setting.name}`" not in text] == []


def test_a_changed_table_would_be_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    row = "| CHEST | 5 | heart | heart | 1d6/2 min | 2 |"
    page = (PAGES / "shadowrun2.md").read_text()
    assert row in page
    (tmp_path / "shadowrun2.md").write_text(page.replace(row, row.replace("1d6/2 min", "1d6 min")))
    monkeypatch.setattr(sys.modules[__name__], "PAGES", tmp_path)
    with pytest.raises(AssertionError):
        test_shadowrun_critical_hit_table()
