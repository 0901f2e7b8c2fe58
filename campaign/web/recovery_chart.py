"""The party's recovery timeline, drawn on the server as SVG geometry the template places
(`templates/web/recovery.html`; docs/recovery.md).

A lane per character on one axis of game dates: each thing in the way a bar from now to its median date with a
whisker to its 90th percentile (a hatched bar to the end of the axis when it needs care or is unknown), the
character's timers marked as ticks, a line for now and one for the party's median. Plain shapes with classes
(static/css/app.css colours them): no inline style (the CSP forbids it) and no script. It is drawn 320 units wide,
the width of a phone, and every text is in the game's words.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from campaign import presenters
from campaign.forecast import recovery as rv
from campaign.forecast import recovery_words as rw
from campaign.web import forecast_chart
from rules import recovery as rc

WIDTH = 320
LEFT = 8
RIGHT = 312
TITLE = 16  # a lane's title (the character and their date)
ROW = 14  # one bar's row
BAR = 10  # a bar's height
GAP = 10
AXIS = 30
DAY = 86_400


@dataclass(frozen=True)
class Bar:
    y: float
    x: float
    width: float
    whisker_to: float | None  # the 90th percentile's x (None: no whisker)
    css: str  # "bar", "bar care", "bar unknown"
    title: str  # the thing and its dates, in words: the bar's tooltip (a reader has them in the list above)

    @property
    def end_x(self) -> float:
        return round(self.x + self.width, 1)

    @property
    def end_y(self) -> float:
        return round(self.y + BAR, 1)

    @property
    def mid_y(self) -> float:
        return round(self.y + BAR / 2, 1)


@dataclass(frozen=True)
class Mark:
    x: float
    y: float
    title: str

    @property
    def points(self) -> str:
        """A small triangle pointing up at the lane's bottom edge."""
        return (
            f"{self.x},{self.y - 5} {round(self.x - 4, 1)},{self.y + 2} {round(self.x + 4, 1)},{self.y + 2}"
        )


@dataclass(frozen=True)
class Lane:
    title: str
    y: float  # the title's baseline
    top: float
    bottom: float
    bars: list[Bar]
    marks: list[Mark] = field(default_factory=list)

    @property
    def height(self) -> float:
        return round(self.bottom - self.top, 1)


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    lanes: list[Lane]
    ticks: list[forecast_chart.Tick]
    axis_y: float
    now_x: float
    party_x: float | None
    party_title: str
    summary: str
    left: int = LEFT
    plot_width: int = RIGHT - LEFT


def chart_end(recovery: rv.Recovery) -> int:
    """The axis's end: the latest dated median or 90th percentile, of anyone or the party; at least a day on."""
    dated = []
    spreads = [recovery.party.all_fit] + [m.outlook.fit for m in recovery.members]
    spreads += [item.when for m in recovery.members for item in m.outlook.items]
    for spread in spreads:
        if spread is not None:
            dated += [at for at in (spread.p50, spread.p90) if at is not None]
    return max([recovery.as_of + DAY, *dated])


def _x(moment: int, start: int, end: int) -> float:
    share = min(max(moment - start, 0), end - start) / max(1, end - start)
    return round(LEFT + (RIGHT - LEFT) * share, 1)


def draw(recovery: rv.Recovery, timers: dict[int, list[tuple[int, str]]]) -> Chart | None:
    """The timeline of the characters in `recovery` (a player's holds only theirs); `timers`: each character's
    (due, what it will do in words), by character id. None when nobody is listed, or when nothing stands in anyone's
    way (everyone fit now): a chart of lanes without a bar said nothing, and the section says so in words instead
    (`web/recovery.html`, `#recovery-no-chart`)."""
    if not any(m.outlook.items or m.outlook.unknown for m in recovery.members):
        return None
    campaign, start = recovery.campaign, recovery.as_of
    end = chart_end(recovery)
    lanes, y = [], 0.0
    for member in recovery.members:
        outlook = member.outlook
        top = y + TITLE
        bars = []
        rows = [(item.what, item.when, item.note, item.need) for item in outlook.items]
        rows += [(what, None, rc.UNKNOWN_UNTIL_DIAGNOSED, None) for what in outlook.unknown]
        for index, (what, when, note, need) in enumerate(rows):
            row_y = top + index * ROW + 2
            if note is not None or when is None or when.p50 is None:
                css = "bar unknown" if note == rc.UNKNOWN_UNTIL_DIAGNOSED else "bar care"
                words = (
                    need or "needs care"
                    if note == rc.NOT_WITHOUT_CARE
                    else note or f"{rw.most_likely(recovery.exact)}not within a year"
                )
                bars.append(Bar(row_y, LEFT, RIGHT - LEFT, None, css, f"{what}: {words}"))
                continue
            x50, whisker = _x(when.p50, start, end), None if when.p90 is None else _x(when.p90, start, end)
            title = f"{what}: out of the way {rw.when_text(recovery, when)}"
            bars.append(
                Bar(
                    row_y,
                    LEFT,
                    max(1.0, x50 - LEFT),
                    whisker if whisker and whisker > x50 else None,
                    "bar",
                    title,
                )
            )
        bottom = top + max(1, len(rows)) * ROW
        marks = [
            Mark(
                _x(due, start, end),
                bottom,
                f"{what} at {rw.day_text(campaign, due)}",
            )
            for due, what in timers.get(member.character.pk, [])
            if due <= end
        ]
        lanes.append(
            Lane(
                rw.lane_text(recovery, member),
                y + 12,
                top,
                bottom,
                bars,
                marks,
            )
        )
        y = bottom + GAP
    axis_y = y
    dated = [
        (m, forecast_chart.tick_text(presenters.game_date(campaign, m), end - start))
        for m in forecast_chart.tick_seconds(start, end)
    ]
    ticks = [
        forecast_chart.Tick(
            _x(moment, start, end), text, "start" if n == 0 else "end" if n == len(dated) - 1 else "middle"
        )
        for n, (moment, text) in enumerate(dated)
    ]
    party = recovery.party.all_fit
    party_x = None if party is None or party.p50 is None or party.p50 == start else _x(party.p50, start, end)
    likely = rw.most_likely(recovery.exact)
    bars = (
        "a bar to its date"
        if recovery.exact
        else ("a bar to its most likely date with a whisker to the date 9 futures in 10 reach")
    )
    summary = (
        f"When each character is fit for action, from {dated[0][1]} to {dated[-1][1]}: each thing in the way "
        f"{bars}; the clock's timers as ticks; "
        "a line for now" + (f" and one for the party's {likely}date." if party_x is not None else ".")
    )
    return Chart(
        WIDTH,
        int(axis_y + AXIS),
        lanes,
        ticks,
        axis_y,
        LEFT,
        party_x,
        rw.party_text(recovery, recovery.party),
        summary,
    )
