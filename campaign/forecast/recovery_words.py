"""The party's recovery in words and JSON (docs/recovery.md): the sentences the party's section, the recovery page
and the API say of a `Recovery` (`campaign.forecast.recovery`), in words a player reads without statistics."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from campaign import presenters
from campaign.forecast.recovery import (
    FIT,
    LIKELY,
    LIKELY_NOT,
    NOT_BY_THEN,
    NOT_CARED_FOR,
    UNKNOWN_UNTIL_DIAGNOSED,
    FitBy,
    Member,
    Party,
    Recovery,
    Scenario,
)
from campaign.models import GM
from rules import forecast as fc
from rules import game_dates
from rules import recovery as rc
from rules.game_dates import game_datetime
from rules.words import capital, duration

if TYPE_CHECKING:
    from campaign.models import Campaign


def day_text(campaign: Campaign, seconds: int | None) -> str:
    """A game date and time (a timer's on the timeline, an advance's end): '2053-03-02 08:00' on the minute, else to
    the second, '2020-01-01 00:00:30'. Never rounded: down, a time to come read as past (a walkthrough's "by 00:00" at
    00:00:36); up, a death at 00:00:30 read as 00:01, more time than there is."""
    moment = None if seconds is None else game_datetime(campaign.start, seconds)
    if moment is None:
        return ""
    return f"{moment:%Y-%m-%d %H:%M}" if moment.second == 0 else f"{moment:%Y-%m-%d %H:%M:%S}"


def moment_text(campaign: Campaign, seconds: int | None) -> str:
    """The campaign's time to the second, as the clock shows it: '2053-01-01 00:00:09'. The recovery's "From ..."
    says it (docs/recovery.md), so that it agrees with the clock on the page; the timeline's dates keep
    `day_text`."""
    iso = presenters.game_date(campaign, seconds)
    return "" if not iso else iso[:19].replace("T", " ")


def _when(campaign: Campaign, spread: fc.Spread | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("p50", "p90"):
        seconds = None if spread is None else getattr(spread, name)
        out[name] = seconds
        out[f"{name}_date"] = presenters.game_date(campaign, seconds)
    out["share"] = None if spread is None else round(spread.share, 4)
    return out


NEAR = 2 * fc.DAY  # a date this close to now says its time of day too


def date_words(campaign: Campaign, seconds: int, now: int) -> str:
    """A date as people say it: '26 February' (the year when it is not now's, the time of day when it is within
    two days: '1 January 14:00', its minute rounded up, or to the second within now's minute: '1 January 00:00:39',
    never a time before now: `game_dates.by_the_minute`)."""
    start = campaign.start
    moment, today = game_datetime(start, seconds), game_datetime(start, now)
    if moment is None:
        return game_dates.BEYOND_THE_CALENDAR
    near = seconds - now < NEAR
    if near:
        moment, clock = game_dates.by_the_minute(moment, today)
    text = game_dates.day_month(moment)
    if today is None or moment.year != today.year:
        text += f" {moment.year}"
    if near:
        text += f" {clock}"
    return text


def dates_text(campaign: Campaign, spread: fc.Spread | None, now: int, exact: bool = False) -> str:
    """When, without statistics: 'by 15 January' (every future agrees), 'most likely by 26 February, at the latest
    by 12 March (9 in 10)' (half the futures by the first date, 9 in 10 by the second), or not within a year (the
    forecast's horizon); `exact` (the rules roll no die on the way): never "most likely". The party's section and a
    character's forecast say their dates with it."""
    if spread is None or spread.p50 is None:
        return "not within a year" if exact else "most likely not within a year"
    low = date_words(campaign, spread.p50, now)
    if spread.p90 is None:
        return f"most likely by {low}, but more than 1 in 10 not within a year"
    high = date_words(campaign, spread.p90, now)
    if high == low:
        return f"by {low}"
    return f"most likely by {low}, at the latest by {high} (9 in 10)"


def when_text(recovery: Recovery, spread: fc.Spread | None, exact: bool | None = None) -> str:
    """When a character or the party is fit (`dates_text`, from the recovery's moment; exact as the recovery is,
    unless said)."""
    return dates_text(recovery.campaign, spread, recovery.as_of, recovery.exact if exact is None else exact)


def most_likely(exact: bool) -> str:
    """ "most likely " before a date or a "not", unless every future agrees (the rules roll no die)."""
    return "" if exact else "most likely "


# A character's and the party's date while a hit is undiagnosed (a player's): the same words whatever the hit is.
UNKNOWN_ONE = "fitness for action unknown until every hit is diagnosed"
UNKNOWN_ALL = "whether all are fit is unknown until every hit is diagnosed"


def character_text(recovery: Recovery, member: Member) -> str:
    outlook = member.outlook
    if outlook.status == rc.DEAD:
        return "dead (not counted in the party's date)"
    text = _fit_text(recovery, outlook)
    return text if member.counted else f"{text} (nobody's character: not counted in the party's date)"


def _fit_text(recovery: Recovery, outlook: rc.Character) -> str:
    if outlook.status == rc.FIT_NOW:
        return "fit for action now"
    if outlook.note == rc.NOT_WITHOUT_CARE:
        # What care says more than "needs care" comes first (a dying character: "dying, needs to be stabilized").
        first = next((item for item in outlook.items if item.need and item.note == rc.NOT_WITHOUT_CARE), None)
        said = f"{first.what}, {first.need}; " if first else ""
        return f"{said}fit for action only once cared for (below)"
    if outlook.note == rc.UNKNOWN_UNTIL_DIAGNOSED:
        return UNKNOWN_ONE
    if outlook.fit is None or outlook.fit.p50 is None:
        return f"{most_likely(recovery.exact)}not fit for action within a year"
    return f"fit for action {when_text(recovery, outlook.fit)}"


def lane_text(recovery: Recovery, member: Member) -> str:
    """The timeline lane's title, short enough for a phone: 'Ash: most likely fit by 10 February'."""
    outlook, name = member.outlook, member.character.name
    if outlook.status is not None:
        return f"{name}: {'fit now' if outlook.status == rc.FIT_NOW else outlook.status}"
    if outlook.note == rc.NOT_WITHOUT_CARE:
        first = next((item for item in outlook.items if item.need and item.note == rc.NOT_WITHOUT_CARE), None)
        return f"{name}: {first.what}, {first.need}" if first else f"{name}: needs care"
    if outlook.fit is None or outlook.fit.p50 is None:
        return f"{name}: {outlook.note or 'not within a year'}"
    return f"{name}: {most_likely(recovery.exact)}fit by {date_words(recovery.campaign, outlook.fit.p50, recovery.as_of)}"


def item_text(recovery: Recovery, item: fc.Item) -> str:
    """'the chest's critical hit (ribs): out of the way most likely by 10 February, at the latest by ...'; what
    needs care says why after it: 'the chest's crippling hit (spine): needs care. A crippling hit never heals on
    its own. It needs a replacement, healing magic, or the GM's Accept.'."""
    if item.note == rc.NOT_WITHOUT_CARE:
        # The why in short sentences of its own, never in parentheses (it may hold sentences); what care, where
        # "needs care" says too little ("dying: needs to be stabilized.").
        need = item.need or "needs care"
        return f"{item.what}: {need}. {capital(item.care)}." if item.care else f"{item.what}: {need}"
    if item.note is not None:
        return f"{item.what}: {item.note}"
    if item.when is None or item.when.p50 is None:
        return f"{item.what}: {most_likely(recovery.exact)}still in the way a year from now"
    return f"{item.what}: out of the way {when_text(recovery, item.when)}"


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"


def not_counted_text(party: Party) -> str:
    """Who the party's sentences leave out, said after them the same way: ' (Cass is dead, not counted) (the player
    characters only: Doc Ruby and Rat are nobody's character, not counted)', or ''."""
    text = ""
    if party.dead:
        text = f" ({_names(party.dead)} {'is' if len(party.dead) == 1 else 'are'} dead, not counted)"
    if party.npcs:
        text += (
            f" (the player characters only: {_names(party.npcs)} "
            f"{'is' if len(party.npcs) == 1 else 'are'} nobody's character, not counted)"
        )
    return text


def party_text(recovery: Recovery, party: Party) -> str:
    """The party's date in words, naming who stands in the way of one, and who is not counted (`not_counted_text`)."""
    dead = not_counted_text(party)
    if party.counted == 0:
        return ("nobody alive to be fit" if party.note == rc.DEAD else "nobody to be fit") + dead
    if party.note == rc.NOT_WITHOUT_CARE:
        return f"not all fit until cared for: {'; '.join(party.blockers)}{dead}"
    if party.note == rc.UNKNOWN_UNTIL_DIAGNOSED:
        return f"{UNKNOWN_ALL}{dead}"
    if party.note == rc.NOT_BY_HORIZON or party.all_fit is None:
        return f"{most_likely(party.exact)}not all fit within a year: {'; '.join(party.blockers)}{dead}"
    if party.all_fit.p50 == recovery.as_of:
        return f"all fit for action now{dead}"
    return f"all fit {when_text(recovery, party.all_fit, party.exact)}{dead}"


def moved_text(recovery: Recovery, scenario: Scenario) -> str:
    """What a what-if comes to (its label says what changes for whom): 'all fit most likely by 2 March, at the
    latest by 9 March (9 in 10), 9 days sooner', or who and what still stands in the way."""
    new, old = scenario.party, recovery.party
    head = party_text(recovery, new)
    if new.all_fit is None or new.all_fit.p50 is None:
        return f"still {head}" if head.startswith(("not", "most likely not")) else head
    if old.all_fit is None or old.all_fit.p50 is None or old.all_fit.p50 == recovery.as_of:
        return head
    change = old.all_fit.p50 - new.all_fit.p50
    if change == 0:
        return f"{head}, no sooner"
    return f"{head}, {duration(abs(change))} {'sooner' if change > 0 else 'later'}"


def by_words(campaign: Campaign, seconds: int, now: int) -> str:
    """The date asked for "how many fit by", as asked: the day alone for a whole day ('12 March'), else
    `date_words`."""
    moment = game_datetime(campaign.start, seconds)
    if moment is not None and (moment.hour, moment.minute, moment.second) == (23, 59, 59):
        today = game_datetime(campaign.start, now)
        year = "" if today is not None and today.year == moment.year else f" {moment.year}"
        return f"{game_dates.day_month(moment)}{year}"
    return date_words(campaign, seconds, now)


# A character's word by then, said after its name: alone (the sentence is of one character), and among others.
ALONE = {
    FIT: "fit",
    LIKELY: "likely fit",
    LIKELY_NOT: "most likely not fit",
    NOT_CARED_FOR: "not fit until cared for",
    NOT_BY_THEN: "not fit by then",
    UNKNOWN_UNTIL_DIAGNOSED: UNKNOWN_UNTIL_DIAGNOSED,
}
AMONG = {
    LIKELY_NOT: "most likely not",
    NOT_CARED_FOR: "not until cared for",
    NOT_BY_THEN: "not by then",
    UNKNOWN_UNTIL_DIAGNOSED: UNKNOWN_UNTIL_DIAGNOSED,
}


def fit_by_text(recovery: Recovery) -> str | None:
    """'By 12 March: 3 of 4 likely fit (Cass most likely not)', in words a player reads without statistics:
    "likely" is at least even odds for each one counted (left out when every future agrees), and the others are
    named with why; 'By 12 March: Ash likely fit' for one character; '..., though most likely not all at once'
    when each is likely but all of them together are not."""
    found = recovery.fit_by
    if found is None:
        return None
    return _fit_by_words(recovery, found) + not_counted_text(recovery.party)


def _fit_by_words(recovery: Recovery, found: FitBy) -> str:
    head = f"By {by_words(recovery.campaign, found.by, recovery.as_of)}:"
    each = found.each
    if not each:
        return f"{head} nobody alive to be fit" if recovery.members else f"{head} nobody to be fit"
    if len(each) == 1:
        _pk, name, word = each[0]
        return f"{head} {name} {ALONE[word]}"
    sure = all(word == FIT for _pk, _name, word in each if word in (FIT, LIKELY))
    text = f"{head} {found.likely} of {len(each)} {'fit' if sure else 'likely fit'}"
    others: dict[str, list[str]] = {}
    for _pk, name, word in each:
        if word in AMONG:
            others.setdefault(AMONG[word], []).append(name)
    if others:
        text += f" ({'; '.join(f'{_names(names)} {words}' for words, names in others.items())})"
    elif found.all_chance < Fraction(1, 2):
        text += ", though most likely not all at once"
    return text


def sampling_text(recovery: Recovery) -> str:
    """How the dates were found, in words a player reads (no statistics)."""
    if recovery.exact:
        return "these dates are certain: the rules roll no die on the way"
    return (
        f"these dates come from {recovery.runs:,} futures the rules' own dice may bring: "
        '"most likely" is a date half of them reach, "at the latest" one that 9 in 10 reach'
    )


def recovery_json(recovery: Recovery) -> dict[str, Any]:
    """The API's answer (docs/recovery.md): seconds and game dates side by side, and the same sentences as the
    page."""
    campaign = recovery.campaign
    data: dict[str, Any] = {
        "as_of": recovery.as_of,
        "as_of_date": presenters.game_date(campaign, recovery.as_of),
        "runs": recovery.runs,
        "exact": recovery.exact,
        "sampling_error": 0.0 if recovery.exact else round(rc.sampling_error(recovery.runs), 2),
        "sampling_text": sampling_text(recovery),
        "characters": [
            {
                "character": m.character.pk,
                "name": m.character.name,
                "in_party": m.counted,
                "status": m.outlook.status,
                "fit": None
                if m.outlook.status is not None or m.outlook.fit is None
                else _when(campaign, m.outlook.fit),
                "note": m.outlook.note,
                "text": character_text(recovery, m),
                "in_the_way": [
                    {
                        "what": item.what,
                        **_when(campaign, item.when),
                        "note": item.note,
                        "care": item.care,
                        "text": item_text(recovery, item),
                    }
                    for item in m.outlook.items
                ]
                + [
                    {
                        "what": what,
                        **_when(campaign, None),
                        "note": rc.UNKNOWN_UNTIL_DIAGNOSED,
                        "care": None,
                        "text": f"{what}: {rc.UNKNOWN_UNTIL_DIAGNOSED}",
                    }
                    for what in m.outlook.unknown
                ],
            }
            for m in recovery.members
        ],
        "party": {
            "counted": recovery.party.counted,
            "all_fit": None if recovery.party.all_fit is None else _when(campaign, recovery.party.all_fit),
            "note": recovery.party.note,
            "text": party_text(recovery, recovery.party),
        },
        "fit_by": None,
    }
    found = recovery.fit_by
    if found is not None:
        data["fit_by"] = {
            "by": found.by,
            "by_date": presenters.game_date(campaign, found.by),
            "fit": found.fit,
            "likely": found.likely,
            "of": len(found.each),
            "all_chance": round(float(found.all_chance), 4),
            "characters": [{"character": pk, "name": name, "by_then": word} for pk, name, word in found.each],
            "text": fit_by_text(recovery),
        }
    if recovery.role == GM:
        data["what_if_menu"] = [{"with": key, "label": label} for key, label in recovery.menu]
        data["what_ifs"] = [
            {
                "with": s.key,
                "label": s.label,
                "all_fit": None if s.party.all_fit is None else _when(campaign, s.party.all_fit),
                "note": s.party.note,
                "text": moved_text(recovery, s),
            }
            for s in recovery.scenarios
        ]
    return data
