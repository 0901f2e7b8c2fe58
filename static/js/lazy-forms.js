// An action's form is fetched when its <details> opens: the `.lazy-form` inside has hx-trigger "toggle once from:closest
// details". htmx listens only from the moment it has processed that element, which is at DOMContentLoaded for the page
// and, for what a swap brings in (a new card that a refresh morphs into the board), at the swap's settle. A <details>
// opened before then has had its `toggle` already, so its form never came (the board's flaky phone run). Each time
// htmx has processed some content (`htmx:load`), any <details> in it that is already open and still waits for its form
// is given its `toggle` again; "once" keeps a form that is already coming from being asked for twice. A file of our
// own: the CSP allows no inline script.
(function () {
  "use strict";
  if (typeof htmx === "undefined") {
    return;
  }
  document.addEventListener("htmx:load", function (event) {
    var root = event.target;
    if (!root || !root.querySelectorAll) {
      return;
    }
    root.querySelectorAll("details[open] > .lazy-form").forEach(function (lazy) {
      htmx.trigger(lazy.parentElement, "toggle");
    });
  });
})();
