// The page as an installable app (docs/notifications.md, "The app"): its service worker, which keeps the last
// page seen for when the phone is offline and shows the pushes. <body data-service-worker> names it.
// A file of our own: the CSP allows no inline script.
(function () {
  "use strict";
  var worker = document.body && document.body.dataset.serviceWorker;
  if (worker && "serviceWorker" in navigator) {
    navigator.serviceWorker.register(worker, { scope: "/" }).catch(function (error) {
      console.warn("The service worker was not registered: " + error.message); // the page works without it
    });
  }
})();
