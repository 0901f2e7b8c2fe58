// Where the focus and the page go after an answer on the board (a card's, the clock's, a refresh).
// - `autofocus` serves the answer that brought it: htmx focuses the first [autofocus] of what each swap brings in,
//   and a card's answered form keeps its place in the page across refreshes (hx-preserve), so a refresh after a
//   clock button focused that card's button again, scrolling the page to it, or another card's when two had
//   answered. Once a swap has settled, no element keeps it.
// - The clock's prompt for a roll (#clock-roll) takes the focus, and scrolls into view, when it appears or asks for
//   another roll; a refresh that leaves the same prompt on screen leaves the focus where the GM put it, and so does
//   one that brings a prompt while the GM is typing in another field.
// A file of our own: the CSP allows no inline script.
(function () {
  "use strict";
  var shownPrompt = null;

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
      var input = prompt.querySelector("input:not([type=hidden]), select, button");
      if (input) {
        input.focus({ preventScroll: true });
      }
      prompt.scrollIntoView({ block: "nearest" });
    }
    shownPrompt = asked;
  }

  document.addEventListener("htmx:afterSettle", function () {
    document.querySelectorAll("[autofocus]").forEach(function (element) {
      element.removeAttribute("autofocus");
    });
    promptShown();
  });
  document.addEventListener("DOMContentLoaded", promptShown);
})();
