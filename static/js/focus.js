// Where the focus and the page go after an answer on the board (a card's, the clock's, a refresh).
// - `autofocus` serves the answer that brought it: htmx focuses the first [autofocus] of what each swap brings in,
//   and a card's answered form keeps its place in the page across refreshes (hx-preserve), so a refresh after a
//   clock button focused that card's button again, scrolling the page to it, or another card's when two had
//   answered. Once a swap has settled, no element keeps it.
// - The clock's prompt for a roll (#clock-roll) takes the focus, and scrolls into view, when it appears or asks for
//   another roll (a refused row: on the first box refused, what the error is about); a refresh that leaves the same prompt on screen leaves the focus where the GM put it, and so does
//   one that brings a prompt while the GM is typing in another field.
// - When the prompt goes (the rolls given, the advance stopped), the focus goes back to what had it when the prompt
//   took it, the button that advanced the clock, without scrolling: the prompt's input went with the prompt, and
//   the focus fell to <body>, so the GM's next Tab or Enter started from the top of the page.
// - "Show the next ... characters" (#more-cards): the first card it brought takes the focus (its name's link), so
//   that Tab goes on through the new cards, not past them to what follows the link.
// - A card's form that has acted (its answer marked `data-acted`, web/board_card_form.html) closes, and the focus
//   goes back to the action's button that opened it (its <summary>), on the card just answered (issue 42): Enter
//   opens it again. What happened is said on the card (web/board_card_said.html). A refused form stays open with
//   what was typed and the error beside its field (the first refused input has the focus). The character page's
//   action forms alike (section.action-form, templates/character.html): their words are said above the actions.
// A file of our own: the CSP allows no inline script.
(function () {
  "use strict";
  var shownPrompt = null;
  var cardsBefore = null;

  function shownMore(event) {
    var config = event.detail.requestConfig;
    if (!config || !config.elt || config.elt.id !== "more-cards" || cardsBefore === null) {
      return;
    }
    var cards = document.querySelectorAll("#cards > .board-card");
    var first = cards.length > cardsBefore ? cards[cardsBefore].querySelector(".card-name a") : null;
    cardsBefore = null;
    if (first) {
      first.focus({ preventScroll: true });
    }
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    if (event.detail.elt && event.detail.elt.id === "more-cards") {
      cardsBefore = document.querySelectorAll("#cards > .board-card").length;
    }
  });
  var beforePrompt = null; // what had the focus when the prompt took it (the element, and its id if it has one)

  // A prompt brought by a refresh (another GM's advance, in another tab) never takes the focus from a field the
  // GM is typing in: the keys meant for a card's form would go to the roll.
  function typingElsewhere(prompt) {
    var active = document.activeElement;
    if (!active || prompt.contains(active)) {
      return false;
    }
    return active.matches("input:not([type=hidden]):not([type=submit]), select, textarea");
  }

  function promptShown() {
    var prompt = document.getElementById("clock-roll");
    var asked = prompt ? prompt.textContent.replace(/\s+/g, " ").trim() : null;
    if (prompt && asked !== shownPrompt && !typingElsewhere(prompt)) {
      var active = document.activeElement;
      if (shownPrompt === null && active && active !== document.body && !prompt.contains(active)) {
        beforePrompt = { element: active, id: active.id };
      }
      // A refused row: the first box the error is about (a typo in Ganger 1's roll focused Ash's correct one).
      var input =
        prompt.querySelector("[aria-invalid=true]") ||
        prompt.querySelector("input:not([type=hidden]), select, button");
      if (input) {
        input.focus({ preventScroll: true });
      }
      prompt.scrollIntoView({ block: "nearest" });
    }
    if (!prompt && shownPrompt !== null) {
      giveTheFocusBack();
    }
    shownPrompt = asked;
  }

  // The answer to the row's own post, refused again with the same words (the prompt's text unchanged, so
  // promptShown leaves the focus alone): the focus goes to the box refused, not left on "Give the rolls".
  function refusedAgain(event) {
    var config = event.detail.requestConfig;
    var prompt = document.getElementById("clock-roll");
    if (!prompt || !config || !config.elt || !config.elt.isConnected || !prompt.contains(config.elt)) {
      return;
    }
    var refused = prompt.querySelector("[aria-invalid=true]");
    if (refused && document.activeElement !== refused) {
      refused.focus({ preventScroll: true });
      prompt.scrollIntoView({ block: "nearest" });
    }
  }

  function giveTheFocusBack() {
    var before = beforePrompt;
    beforePrompt = null;
    var active = document.activeElement;
    if (!before || (active && active !== document.body)) {
      return; // the GM has put the focus somewhere since: it stays there
    }
    var element = before.element.isConnected ? before.element : before.id && document.getElementById(before.id);
    if (element) {
      element.focus({ preventScroll: true });
    }
  }

  function acted(section) {
    section.removeAttribute("data-acted");
    var details = section.closest("details");
    if (!details) {
      return;
    }
    details.open = false;
    var summary = details.querySelector(":scope > summary");
    if (summary) {
      summary.focus({ preventScroll: true });
    }
  }

  document.addEventListener("htmx:load", function (event) {
    var root = event.target;
    if (root && root.matches && root.matches("section.card-form[data-acted], section.action-form[data-acted]")) {
      acted(root);
    }
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    document.querySelectorAll("[autofocus]").forEach(function (element) {
      element.removeAttribute("autofocus");
    });
    promptShown();
    refusedAgain(event);
    shownMore(event);
  });
  document.addEventListener("DOMContentLoaded", promptShown);
})();
