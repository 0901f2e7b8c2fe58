// Lighthouse (its default config: the mobile preset) on one page as a logged-in user, for perf/lighthouse.py:
// Chromium launched by chrome-launcher (CHROME_PATH, CHROME_FLAGS), the session cookie set in the browser through
// puppeteer-core, storage kept (Lighthouse would clear the cookie), the JSON report written to the given file.
// node run.js URL COOKIE_NAME COOKIE_VALUE OUT.json
import fs from "node:fs";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import puppeteer from "puppeteer-core";

const [url, cookieName, cookieValue, out] = process.argv.slice(2);
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROME_PATH,
  chromeFlags: (process.env.CHROME_FLAGS || "").split(" ").filter(Boolean),
});
try {
  const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
  const page = await browser.newPage();
  await page.setCookie({ name: cookieName, value: cookieValue, url: new URL(url).origin });
  const categories = ["performance", "accessibility", "best-practices"];
  const result = await lighthouse(
    url,
    { output: "json", logLevel: "error", onlyCategories: categories, disableStorageReset: true },
    undefined,
    page,
  );
  fs.writeFileSync(out, result.report);
  await browser.disconnect();
} finally {
  await chrome.kill();
}
