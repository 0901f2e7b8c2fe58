// Wound Ledger's service worker (docs/notifications.md, "The app"). Served from /service-worker.js, so that it
// controls every page of the site.
// - The last page seen: each page is fetched from the network and a copy kept with the moment it came; offline, the
//   copy is shown, marked "Seen at 21:14, offline". Logging out forgets every copy: a shared phone shows the next
//   person nothing of the last one's characters.
// - The pushes: each message {title, body, url} is shown as a notification; a tap opens its url.
"use strict";

const PAGES = "pages-v1";
const FILES = "files-v1";
const SEEN = "X-Seen-At";
const MAIN = '<main id="main">';

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

function seenWords(seenAt) {
  const time = new Date(Number(seenAt)).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  return `Seen at ${time}, offline`;
}

// A copy to keep: the page's body and headers, with the moment it was seen (a body read whole: it is decoded).
async function kept(response) {
  const headers = new Headers(response.headers);
  headers.delete("Content-Length");
  headers.delete("Content-Encoding");
  headers.set(SEEN, String(Date.now()));
  return new Response(await response.clone().blob(), { status: 200, headers });
}

// The copy shown offline: the page as it was, the mark at the top of its content.
async function offlinePage(copy) {
  const html = await copy.text();
  const mark = `${MAIN}<p class="offline" role="status">${seenWords(copy.headers.get(SEEN))}</p>`;
  const headers = new Headers(copy.headers);
  headers.delete(SEEN);
  return new Response(html.replace(MAIN, mark), { status: 200, headers });
}

const NOT_SEEN = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" " +
  "content=\"width=device-width, initial-scale=1\"><title>Offline · Wound Ledger</title></head><body><main>" +
  "<h1>Offline</h1><p>This phone is offline, and this page was not seen on it before.</p></main></body></html>";

async function page(request) {
  const cache = await caches.open(PAGES);
  try {
    const response = await fetch(request);
    const type = response.headers.get("Content-Type") || "";
    if (response.status === 200 && type.startsWith("text/html")) {
      await cache.put(request.url, await kept(response));
    }
    return response;
  } catch (offline) {
    const copy = await cache.match(request.url);
    if (copy) {
      return offlinePage(copy);
    }
    return new Response(NOT_SEEN, { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
  }
}

// The styles, scripts and icons a page needs: from the network while there is one, else the last copy.
async function file(request) {
  const cache = await caches.open(FILES);
  try {
    const response = await fetch(request);
    if (response.status === 200) {
      await cache.put(request, response.clone());
    }
    return response;
  } catch (offline) {
    const copy = await cache.match(request);
    if (copy) {
      return copy;
    }
    throw offline;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) {
    return;
  }
  if (request.method === "POST" && url.pathname === "/logout/") {
    event.waitUntil(Promise.all([caches.delete(PAGES), caches.delete(FILES)]));
    return;
  }
  if (request.method !== "GET" || request.headers.get("HX-Request") || url.pathname.startsWith("/api/")) {
    return; // the live regions' polls and the API: the network's answer, or none
  }
  if (request.mode === "navigate") {
    event.respondWith(page(request));
  } else if (url.pathname.startsWith("/static/")) {
    event.respondWith(file(request));
  }
});

self.addEventListener("push", (event) => {
  const message = event.data ? event.data.json() : { title: "Wound Ledger", body: "", url: "/" };
  event.waitUntil(
    self.registration.showNotification(message.title, {
      body: message.body,
      tag: message.url, // one notification per character: the latest replaces the one before
      renotify: true,
      icon: "/static/icons/icon-192.png",
      data: { url: message.url },
    })
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data.url, self.location.origin).href;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const open = windows.find((client) => client.url === url);
      return open ? open.focus() : self.clients.openWindow(url);
    })()
  );
});
