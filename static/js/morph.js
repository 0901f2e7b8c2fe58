// The live regions refresh by morphing the new rendering into the page (idiomorph's htmx extension, hx-swap
// "morph:outerHTML"), so the reader keeps what they had open: a <details> they opened stays open (the server
// renders it closed), and a field being typed in keeps its value. A file of our own: the CSP allows no inline
// script and htmx's allowEval is off.
(function () {
  "use strict";
  if (typeof Idiomorph === "undefined") {
    return;
  }
  Idiomorph.defaults.ignoreActiveValue = true;
  Idiomorph.defaults.callbacks.beforeAttributeUpdated = function (name, element, change) {
    return !(name === "open" && change === "remove" && element.tagName === "DETAILS");
  };
})();
