"""The forecast's chart, drawn on the server as SVG geometry the template places (`templates/web/forecast.html`).

One lane per injury, all on the same time axis (the game's dates): what is left of the injury (boxes, points) from
the top of the lane down to healed at its bottom, the median as a line and the 10-90% range of the futures as a
band; where every future is the same (Dark Future's clock rolls no die) the band is the line, and the words say one
course, not a most likely one. Plain shapes with classes (static/css/app.css colours them): no inline style, which
the CSP forbids, and no script; a phone draws it as it draws the body diagram. Every text is in the game's words.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules import forecast as fc

WIDTH = 320
LEFT = 8
RIGHT = 312
LANE = 44  # the height of one lane's plot
LABEL = 16  # the lane's title above it
AXIS = 30  # the dates under the last lane
TICKS = 4


@dataclass(frozen=True)
class Lane:
    what: str
    top: int  # the y of its title
    plot_top: int
    plot_bottom: int
    band: str  # polygon points: the 90th percentile forward, the 10th back
    median: str  # polyline points


@dataclass(frozen=True)
class Tick:
    x: float
    text: str
    anchor: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    lanes: list[Lane]
    ticks: list[Tick]
    axis_y: int
    summary: str  # what the picture shows, for screen readers
    caption: str  # the same under it, for those who see it
    left: int = LEFT
    plot_width: int = RIGHT - LEFT
    lane_height: int = LANE


def _x(moment: int, start: int, end: int) -> float:
    return round(LEFT + (RIGHT - LEFT) * (moment - start) / max(1, end - start), 1)


def _y(amount: int, most: int, top: int, bottom: int) -> float:
    share = min(amount, most) / max(1, most)
    return round(bottom - (bottom - top) * share, 1)


def _points(pairs: list[tuple[float, float]]) -> str:
    return " ".join(f"{x},{y}" for x, y in pairs)


def _lane(line: fc.Line, index: int, start: int, end: int) -> Lane:
    top = index * (LABEL + LANE + 8)
    plot_top, plot_bottom = top + LABEL, top + LABEL + LANE
    xs = [_x(moment, start, end) for moment, *_ in line.points]
    high = [
        (x, _y(p90, line.most, plot_top, plot_bottom))
        for x, (_, _, _, p90) in zip(xs, line.points, strict=True)
    ]
    low = [
        (x, _y(p10, line.most, plot_top, plot_bottom))
        for x, (_, p10, _, _) in zip(xs, line.points, strict=True)
    ]
    median = [
        (x, _y(p50, line.most, plot_top, plot_bottom))
        for x, (_, _, p50, _) in zip(xs, line.points, strict=True)
    ]
    return Lane(line.what, top, plot_top, plot_bottom, _points(high + low[::-1]), _points(median))


def draw(result: fc.Forecast, lines: list[fc.Line], dated: list[tuple[int, str]]) -> Chart | None:
    """The chart of the untreated futures; None when there is nothing to draw. `dated`: the tick seconds with
    their game dates (the campaign's calendar), from the start of the axis to its end."""
    if not lines:
        return None
    start, end = dated[0][0], dated[-1][0]
    lanes = [_lane(line, index, start, end) for index, line in enumerate(lines)]
    axis_y = lanes[-1].plot_bottom + 4
    ticks = [
        Tick(_x(moment, start, end), text, "start" if n == 0 else "end" if n == len(dated) - 1 else "middle")
        for n, (moment, text) in enumerate(dated)
    ]
    span = f"from {dated[0][1]} to {dated[-1][1]}"
    if alike(lines):
        # Every future the same at every point drawn (Dark Future always: its clock rolls no die): the band is the
        # line itself, and there is no "most likely" about it.
        summary = f"What is left of each injury {span} as a line: the same in every future."
        caption = (
            "What is left of each injury over game time: the line is its course, the same in every future."
        )
    else:
        summary = (
            f"What is left of each injury {span}: the most likely course as a line, where 8 futures in 10 are "
            "as a band."
        )
        caption = (
            "What is left of each injury over game time: the line is the most likely course, the band where 8 "
            "futures in 10 are."
        )
    return Chart(WIDTH, axis_y + AXIS, lanes, ticks, axis_y, summary, caption)


def alike(lines: list[fc.Line]) -> bool:
    """Whether the chart draws one course only: at every point of every line the 10th, 50th and 90th percentiles
    agree, so the band is the line (every future the same, as a clock that rolls no die gives)."""
    return all(low == mid == high for line in lines for _moment, low, mid, high in line.points)


def tick_seconds(start: int, end: int) -> list[int]:
    """Where the axis's dates go: its start, its end and evenly between."""
    return [start + (end - start) * n // (TICKS - 1) for n in range(TICKS)]


def tick_text(iso: str | None, span: int) -> str:
    """A tick's game date: the day, or the day and time over a span of under three days."""
    if not iso:
        return ""
    return iso[:10] if span >= 3 * 86_400 else iso[5:16].replace("T", " ")
