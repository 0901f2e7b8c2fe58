// "Tell me on this phone" (docs/notifications.md): the opt-in of the character page's #push section, and its
// undo. It asks the browser's permission, subscribes with the server's VAPID key and posts the subscription; the undo
// removes it on the server and in the browser. A browser without push, or a server without VAPID keys (no
// section), shows nothing. The button registers the service worker (a GM's page does not, app.js).
// A file of our own: the CSP allows no inline script.
(function () {
  "use strict";
  var STORED = "wound-ledger-push-subscription";

  function key(base64url) {
    var raw = atob(base64url.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((base64url.length + 3) % 4));
    return Uint8Array.from(raw, function (c) { return c.charCodeAt(0); });
  }

  function csrf() {
    return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"];
  }

  function send(method, url, body) {
    return fetch(url, {
      method: method,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(function (answer) {
      if (!answer.ok && answer.status !== 404) {
        throw new Error("the server answered " + answer.status);
      }
      return answer.status === 204 || answer.status === 404 ? null : answer.json();
    });
  }

  // What the API takes of a PushSubscription: its endpoint and keys (toJSON() adds expirationTime).
  function posted(subscription, campaigns) {
    var json = subscription.toJSON();
    var body = { endpoint: json.endpoint, keys: { p256dh: json.keys.p256dh, auth: json.keys.auth } };
    if (campaigns.length) {
      body.campaigns = campaigns;
    }
    return body;
  }

  function start(section) {
    var on = section.querySelector("#push-on");
    var off = section.querySelector("#push-off");
    var state = section.querySelector("#push-state");
    var campaigns = section.dataset.campaign ? [Number(section.dataset.campaign)] : [];
    var offered = state.textContent;

    function shown(subscribed, words) {
      on.hidden = subscribed;
      off.hidden = !subscribed;
      state.textContent = words || (subscribed ? section.dataset.onWords : offered);
    }

    function kept(subscription, withCampaigns) {
      return send("POST", section.dataset.subscriptions, posted(subscription, withCampaigns)).then(function (answer) {
        localStorage.setItem(STORED, String(answer.id));
        shown(true);
      });
    }

    function failed(error) {
      on.disabled = off.disabled = false;
      state.textContent = "Not done: " + error.message;
    }

    on.addEventListener("click", function () {
      on.disabled = true;
      Notification.requestPermission()
        .then(function (permission) {
          if (permission !== "granted") {
            throw new Error("this browser does not let the page notify (allow it in the site's settings)");
          }
          return Promise.all([
            navigator.serviceWorker.register(section.dataset.worker, { scope: "/" }).then(function () {
              return navigator.serviceWorker.ready;
            }),
            fetch(section.dataset.key, { credentials: "same-origin" }).then(function (a) { return a.json(); }),
          ]);
        })
        .then(function (both) {
          return both[0].pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key(both[1].public_key) });
        })
        .then(function (subscription) { return kept(subscription, campaigns); })
        .then(function () { on.disabled = false; })
        .catch(failed);
    });

    off.addEventListener("click", function () {
      off.disabled = true;
      navigator.serviceWorker.getRegistration("/")
        .then(function (registration) { return registration && registration.pushManager.getSubscription(); })
        .then(function (subscription) {
          var id = localStorage.getItem(STORED);
          var removed = id ? send("DELETE", section.dataset.subscriptions + id + "/") : Promise.resolve();
          return removed.then(function () { return subscription && subscription.unsubscribe(); });
        })
        .then(function () {
          localStorage.removeItem(STORED);
          off.disabled = false;
          shown(false);
        })
        .catch(failed);
    });

    section.hidden = false;
    // Subscribed before (on this page or another): said so, and posted again, so that the server has it even
    // after the browser renewed it or the server dropped it.
    navigator.serviceWorker.getRegistration("/")
      .then(function (registration) { return registration && registration.pushManager.getSubscription(); })
      .then(function (subscription) {
        if (subscription && Notification.permission === "granted") {
          shown(true);
          return navigator.onLine ? kept(subscription, []) : null;
        }
      })
      .catch(function () {
        // Posted again at the next visit: the phone is subscribed whatever the server answered now.
      });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var section = document.getElementById("push");
    if (section && "serviceWorker" in navigator && "PushManager" in window && "Notification" in window) {
      start(section);
    }
  });
})();
