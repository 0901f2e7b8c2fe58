"""The GM's board as a browser holds it, for the Django test client: a small DOM (an HTML parser's tree) to which each
htmx answer is applied as htmx would (the target's swap, `hx-swap-oob`, `hx-select-oob`, `hx-preserve`, the
`refresh` event an answer triggers, the live region's poll with its ETag), so that a test can compare the page as the
GM has it with a fresh load (tests/web/test_board_regions.py). Morphing is a replacement here: what idiomorph keeps
besides (an open <details>, the focus) is the browser tests' to check."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from html import escape
from html.parser import HTMLParser
from typing import Any

from django.test import Client

from campaign.web.forms.table_dice import CLOCK_ROLL_INPUT

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
SWAPPED = {200, 201, 202, 400, 409}  # base.html's responseHandling: what htmx swaps in


class Node:
    def __init__(self, tag: str, attrs: dict[str, str | None]) -> None:
        self.tag, self.attrs = tag, attrs
        self.children: list[Node | str] = []
        self.parent: Node | None = None

    def append(self, child: Node | str) -> None:
        if isinstance(child, Node):
            child.parent = self
        self.children.append(child)

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()

    def find(self, element_id: str) -> Node | None:
        return next((node for node in self.walk() if node.attrs.get("id") == element_id), None)

    def get(self, element_id: str) -> Node:
        found = self.find(element_id)
        assert found is not None, f"no #{element_id}"
        return found

    def having(self, attribute: str) -> list[Node]:
        return [node for node in self.walk() if attribute in node.attrs]

    def text(self) -> str:
        return " ".join(
            " ".join(child.split()) if isinstance(child, str) else child.text() for child in self.children
        ).strip()

    def html(self) -> str:
        attrs = "".join(
            f" {name}" if value is None else f' {name}="{escape(value)}"'
            for name, value in self.attrs.items()
        )
        inner = "".join(escape(c, quote=False) if isinstance(c, str) else c.html() for c in self.children)
        return f"<{self.tag}{attrs}>" if self.tag in VOID else f"<{self.tag}{attrs}>{inner}</{self.tag}>"

    def replace_with(self, nodes: list[Node | str]) -> None:
        parent = self.parent
        assert parent is not None, f"#{self.attrs.get('id')} is not in the page"
        at = next(i for i, child in enumerate(parent.children) if child is self)
        for node in nodes:
            if isinstance(node, Node):
                node.parent = parent
        parent.children[at : at + 1] = nodes
        self.parent = None

    def remove(self) -> None:
        self.replace_with([])


class _Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.open = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs))
        self.open[-1].append(node)
        if tag not in VOID:
            self.open.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.open[-1].append(Node(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.open[-1].append(data)


def parse(html: str) -> Node:
    tree = _Tree()
    tree.feed(html)
    tree.close()
    return tree.root


def form_values(form: Node, submitter: Node | None = None) -> dict[str, Any]:
    """What a browser posts of `form`: its inputs (a checkbox when ticked), each select's chosen option, the
    submitting button's name and value."""
    values: dict[str, list[str]] = {}
    for node in form.walk():
        name = node.attrs.get("name")
        if not name:
            continue
        kind = node.attrs.get("type", "text")
        if node.tag == "input" and kind not in ("submit", "button", "checkbox", "radio"):
            values.setdefault(name, []).append(node.attrs.get("value") or "")
        elif node.tag == "input" and "checked" in node.attrs:
            values.setdefault(name, []).append(node.attrs.get("value") or "on")
        elif node.tag == "textarea":
            values.setdefault(name, []).append(node.text())
        elif node.tag == "select":
            options = [o for o in node.walk() if o.tag == "option"]
            chosen = next((o for o in options if "selected" in o.attrs), options[0] if options else None)
            if chosen is not None:
                value = chosen.attrs.get("value")  # an option's value="" posts "", not its words
                values.setdefault(name, []).append(chosen.text() if value is None else value)
    if submitter is not None and submitter.attrs.get("name"):
        values.setdefault(str(submitter.attrs["name"]), []).append(submitter.attrs.get("value") or "")
    return {name: given[0] if len(given) == 1 else given for name, given in values.items()}


class LivePage:
    """The board as the GM's browser holds it, swap after swap."""

    def __init__(
        self, client: Client, campaign_id: int, answered: Callable[[LivePage, list[str]], None]
    ) -> None:
        """`answered` is called after each answer's swaps, before the refresh it triggers, with the ids of the
        elements it swapped."""
        self.client, self.url = client, f"/campaigns/{campaign_id}/"
        self.page = fresh_board(client, campaign_id)
        self.answered = answered
        self.recovery_answers: list[
            Any
        ] = []  # the party section's refreshes, each with the request it answered

    # --- htmx's side -------------------------------------------------------------------------------------------

    def _swap(self, target: Node, answer: str, style: str, select_oob: str | None = None) -> list[str]:
        """The answer swapped in; the ids of what it replaced."""
        fragment = parse(answer)
        swapped = [str(target.attrs.get("id"))]
        if select_oob:
            for selector in select_oob.split(","):
                taken = fragment.find(selector.strip().removeprefix("#"))
                if taken is not None:
                    taken.remove()
                    self._replace(self.page.get(str(taken.attrs["id"])), [taken])
                    swapped.append(str(taken.attrs["id"]))
        for oob in fragment.having("hx-swap-oob"):
            oob.remove()
            assert oob.attrs.pop("hx-swap-oob") == "true"
            self._replace(self.page.get(str(oob.attrs["id"])), [oob])
            swapped.append(str(oob.attrs["id"]))
        if style == "innerHTML":
            for child in list(target.children):
                if isinstance(child, Node):
                    child.parent = None
            target.children = []
            for child in fragment.children:
                target.append(child)
        else:
            assert style in ("outerHTML", "morph:outerHTML"), style
            self._replace(target, list(fragment.children))
        return swapped

    def _replace(self, old: Node, new: list[Node | str]) -> None:
        """`old` replaced by `new`, an element of `new` marked hx-preserve keeping the page's element of its id."""
        for node in [n for item in new if isinstance(item, Node) for n in item.walk()]:
            if "hx-preserve" in node.attrs and node.attrs.get("id"):
                kept = self.page.find(str(node.attrs["id"]))
                if kept is not None:
                    kept.remove()
                    node.replace_with([kept])
        old.replace_with(new)

    def _answered(self, response: Any, target: Node, style: str, select_oob: str | None = None) -> None:
        if response.status_code in SWAPPED:
            self.answered(self, self._swap(target, response.content.decode(), style, select_oob))
        self._triggered(response)

    def _triggered(self, response: Any) -> None:
        """The events an answer's `HX-Trigger` names, heard as the board's elements hear them: `refresh` by the
        live region (it polls), `changed` by the party's section (it fetches itself again). Nothing else asks the
        section again: an answer that changes what it shows and says neither leaves it as it was."""
        events = {name.strip() for name in response.get("HX-Trigger", "").split(",")}
        if "refresh" in events:
            self.poll()
        if "changed" in events:
            self.load_recovery()

    def _post(self, form: Node, submitter: Node | None = None, **values: Any) -> Any:
        posted = {**form_values(form, submitter), **values}
        target_id = str(form.attrs["hx-target"]).removeprefix("#")
        response = self.client.post(
            str(form.attrs["hx-post"]),
            posted,
            HTTP_HX_REQUEST="true",
            HTTP_HX_TARGET=target_id,
        )
        self._answered(
            response, self.page.get(target_id), str(form.attrs["hx-swap"]), form.attrs.get("hx-select-oob")
        )
        return response

    # --- what the GM does ----------------------------------------------------------------------------------------

    def poll(self) -> int:
        """The live region's refresh: its ETag sent, with what it includes (the pages of cards shown), a 304 swaps
        nothing."""
        live = self.page.get("live")
        etag = json.loads(str(live.attrs["hx-headers"]))["If-None-Match"]
        included = self.page.find(str(live.attrs.get("hx-include", "#")).removeprefix("#"))
        response = self.client.get(
            self.url,
            {} if included is None else {str(included.attrs["name"]): str(included.attrs["value"])},
            HTTP_HX_REQUEST="true",
            HTTP_HX_TARGET="live",
            HTTP_HX_TRIGGER="live",
            HTTP_IF_NONE_MATCH=etag,
        )
        assert response.status_code in (200, 304), response.status_code
        if response.status_code == 200:
            self._swap(live, response.content.decode(), "morph:outerHTML")
            self._triggered(response)
        return int(response.status_code)

    def show_more(self) -> None:
        """ "Show the next ... characters": the live region with one more page of cards, morphed in."""
        link = self.page.get("more-cards")
        response = self.client.get(
            str(link.attrs["hx-get"]),
            HTTP_HX_REQUEST="true",
            HTTP_HX_TARGET="live",
            HTTP_HX_TRIGGER="more-cards",
        )
        assert response.status_code == 200
        self.answered(self, self._swap(self.page.get("live"), response.content.decode(), "morph:outerHTML"))

    def load_recovery(self) -> Any:
        """The party's section asked again as htmx asks it on `changed`: the element listening for it (the panel,
        or before its first answer the body's loader), with the fields of what it includes (the what-ifs and date
        of its form, as the GM has them now), swapped into its target."""
        section = self.page.get("recovery")
        listening = [n for n in section.walk() if "changed from:body" in str(n.attrs.get("hx-trigger", ""))]
        loader = (listening or [n for n in section.walk() if "hx-get" in n.attrs])[0]
        included = self.page.find(str(loader.attrs.get("hx-include", "#")).removeprefix("#"))
        response = self.client.get(
            str(loader.attrs["hx-get"]),
            {} if included is None else form_values(included),
            HTTP_HX_REQUEST="true",
        )
        assert response.status_code in (200, 400)  # 400: a question refused, said in the section
        self.recovery_answers.append(response)
        target = self.page.get(str(loader.attrs.get("hx-target", "#recovery-body")).removeprefix("#"))
        self._swap(target, response.content.decode(), "innerHTML")
        return response

    def open_card_form(self, character_id: int, action: str) -> None:
        """The card's <details> opened: its form fetched in place of the lazy placeholder (once)."""
        details = self.page.get(f"card-{character_id}-{action}")
        details.attrs["open"] = None
        lazy = next((n for n in details.walk() if n.attrs.get("class") == "lazy-form"), None)
        if lazy is None:
            return
        response = self.client.get(str(lazy.attrs["hx-get"]), HTTP_HX_REQUEST="true")
        assert response.status_code == 200
        self._swap(lazy, response.content.decode(), "outerHTML")

    def card_form(self, character_id: int, action: str) -> Node:
        self.open_card_form(character_id, action)
        section = self.page.get(f"card-{character_id}-form-{action}")
        return next(node for node in section.walk() if node.tag == "form")

    def card_post(self, character_id: int, action: str, **values: Any) -> Any:
        return self._post(self.card_form(character_id, action), **values)

    def clock_button(self, button_id: str) -> Any:
        button = self.page.get(button_id)
        form = _enclosing_form(button)
        return self._post(form, button)

    def next_round(self) -> Any:
        form = next(
            n
            for n in self.page.get("fight").walk()
            if n.tag == "form" and "clock" in str(n.attrs.get("hx-post", ""))
        )
        return self._post(form)

    def clock_roll(self, dice: str | None) -> Any | None:
        """The clock's prompt answered: these dice, or (None) the server asked to roll the rest."""
        prompt = self.page.find("clock-roll")
        if prompt is None:
            return None
        forms = [n for n in prompt.walk() if n.tag == "form"]
        go_on = [f for f in forms if "go-on" in str(f.attrs.get("hx-post", ""))]
        if go_on:  # a death waits for the GM's yes: the answer lets it happen (docs/clock.md)
            return self._post(go_on[0])
        form = forms[0]
        if dice is None:
            server = next(n for n in form.walk() if n.tag == "button" and n.attrs.get("name") == "ask")
            return self._post(form, server)
        # The row of rolls a round asks (one input a character and roll): the same dice typed in each.
        typed = [
            str(n.attrs["name"])
            for n in form.walk()
            if n.tag == "input" and str(n.attrs.get("name", "")).startswith(CLOCK_ROLL_INPUT)
        ]
        assert typed, "the clock's prompt has no roll to type"
        return self._post(form, **dict.fromkeys(typed, dice))


def _enclosing_form(node: Node) -> Node:
    found: Node | None = node
    while found is not None and found.tag != "form":
        found = found.parent
    assert found is not None
    return found


def fresh_board(client: Client, campaign_id: int, query: str = "") -> Node:
    """The board as a fresh load shows it (of `query`: the pages of cards shown), its party's section loaded."""
    response = client.get(f"/campaigns/{campaign_id}/{query}")
    assert response.status_code == 200
    page = parse(response.content.decode())
    loader = page.get(
        "recovery-body"
    )  # its loader, or the panel drawn already: the same panel, fetched again
    section = client.get(f"/campaigns/{campaign_id}/recovery/", HTTP_HX_REQUEST="true")
    assert section.status_code == 200
    loader.children = []
    for child in parse(section.content.decode()).children:
        loader.append(child)
    return page
