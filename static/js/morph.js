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

  // The reader's place: what they were reading stays where it was on the screen when the region changes above it
  // (time travel adds its banner and the clock of that moment at the top; a refresh adds a history entry). The
  // place is the element with an id holding the focus (the "view as it was" link just clicked; a clock button below
  // the board's live region, which an advance can shorten by much: the dead lose their forms) if it is on screen,
  // else the first element of the region with an id (a history entry, a card, a panel) whose top is on screen.
  // Chromium's own scroll anchoring does not survive a morph that adds content above, so it is done here.
  var place = null;

  function onScreen(element) {
    var box = element.getBoundingClientRect();
    return box.bottom > 0 && box.top < window.innerHeight && box.height > 0;
  }

  function placeIn(region) {
    var focused = document.activeElement;
    var held = focused && focused !== document.body ? focused.closest("[id]") : null;
    if (held && !held.contains(region) && onScreen(held)) {
      return held;
    }
    var all = region.querySelectorAll("[id]");
    for (var i = 0; i < all.length; i++) {
      var top = all[i].getBoundingClientRect().top;
      if (top >= 0 && top < window.innerHeight && onScreen(all[i])) {
        return all[i];
      }
    }
    return null;
  }

  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    place = null;
    if (target && target.id === "live" && window.scrollY > 0) {
      var element = placeIn(target);
      if (element) {
        place = { id: element.id, top: element.getBoundingClientRect().top };
      }
    }
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail.target;
    if (!place || !target || target.id !== "live") {
      return;
    }
    var element = document.getElementById(place.id);
    if (element) {
      var moved = element.getBoundingClientRect().top - place.top;
      if (moved !== 0) {
        window.scrollBy(0, moved);
      }
    }
    place = null;
  });
})();
