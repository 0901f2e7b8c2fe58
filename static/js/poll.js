// The live regions' polls (docs/web.md, "Polling only when someone looks"), as healthchecks.io's adaptive interval
// does it: each element with `data-poll` is sent the htmx event `poll` (its hx-trigger) every few seconds while
// someone looks at the page, at most once a minute once nobody has touched it for five minutes, and never while its
// tab is hidden; a tab shown again asks once at once. The intervals are <body>'s data-poll-every, data-poll-idle-after and
// data-poll-idle-every, in seconds (the server's POLL_* settings).
// A region marked `data-when-seen` (a forecast refused for now, which asks again once its wait is over) asks only while
// the tab is shown: asked while hidden, it waits and asks once the tab is shown again (its hx-trigger has `seen`).
// A file of our own: the CSP allows no inline script.
(function () {
  "use strict";
  var touched = Date.now();
  var last = Date.now(); // the page itself was the first answer
  var timer = null;
  var waiting = []; // regions that would have asked while the tab was hidden

  function ms(name, fallback) {
    var value = parseFloat(document.body.dataset[name]);
    return value > 0 ? value * 1000 : fallback;
  }

  function idle() {
    return Date.now() - touched > ms("pollIdleAfter", 300000);
  }

  function poll() {
    last = Date.now();
    document.querySelectorAll("[data-poll]").forEach(function (region) {
      window.htmx.trigger(region, "poll");
    });
  }

  function schedule() {
    clearTimeout(timer);
    if (document.visibilityState === "hidden") {
      return;
    }
    var every = idle() ? ms("pollIdleEvery", 60000) : ms("pollEvery", 2000);
    timer = setTimeout(function () {
      poll();
      schedule();
    }, Math.max(0, last + every - Date.now()));
  }

  function touch() {
    var wasIdle = idle();
    touched = Date.now();
    if (wasIdle) {
      schedule(); // back from idle: the next poll comes at the quick pace
    }
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      touched = Date.now();
      poll();
      waiting.splice(0).forEach(function (region) {
        if (region.isConnected) {
          window.htmx.trigger(region, "seen");
        }
      });
    }
    schedule();
  });
  document.addEventListener("htmx:beforeRequest", function (event) {
    var region = event.detail.elt;
    if (document.visibilityState === "hidden" && region.hasAttribute("data-when-seen")) {
      event.preventDefault();
      if (waiting.indexOf(region) < 0) {
        waiting.push(region);
      }
    }
  });
  ["pointerdown", "keydown", "wheel", "touchstart", "scroll"].forEach(function (name) {
    window.addEventListener(name, touch, { capture: true, passive: true });
  });
  document.addEventListener("DOMContentLoaded", schedule);
})();
