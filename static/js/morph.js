// The live regions refresh by morphing the new rendering into the page (idiomorph's htmx extension, hx-swap
// "morph:outerHTML"), so the reader keeps what they had open: a <details> they opened stays open (the server
// renders it closed); the focused element is the same node, so it keeps the focus. Not idiomorph's
// ignoreActiveValue: it leaves the focused element's children alone, so a <summary> just clicked would never
// show its new count. A file of our own: the CSP allows no inline script and htmx's allowEval is off.
(function () {
  "use strict";
  if (typeof Idiomorph === "undefined") {
    return;
  }
  Idiomorph.defaults.callbacks.beforeAttributeUpdated = function (name, element, change) {
    return !(name === "open" && change === "remove" && element.tagName === "DETAILS");
  };
})();
