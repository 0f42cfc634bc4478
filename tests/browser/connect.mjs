// Opens hosted Connect pages in headless Chromium and connects accounts:
// an API-key account through its form, a searched-for connector of an
// unfiltered link, a reconnect of a broken account, a link with a redirect
// (the Continue button), and an OAuth account through the provider's
// consent redirect. Prints one JSON document of what it saw.
//
//   SB_KEY_LINK=<url> SB_OAUTH_LINK=<url> SB_ALL_LINK=<url> SB_RECONNECT_LINK=<url>
//   SB_REDIRECT_LINK=<url> SB_BAD_LINK=<url> SB_SHOTS=<dir> node connect.mjs
import { chromium } from "playwright-core";

const out = {};
const env = process.env;
const browser = await chromium.launch({
  executablePath: env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
const shots = env.SB_SHOTS || "";
const phone = { width: 390, height: 844 };
// snap saves the page at desktop and phone widths, then goes on at phone width.
const snap = async (page, name) => {
  if (!shots) return;
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: `${shots}/${name}-desktop.png`, fullPage: true });
  await page.setViewportSize(phone);
  await page.screenshot({ path: `${shots}/${name}-phone.png`, fullPage: true });
};
const text = async (loc) => ((await loc.textContent()) || "").replace(/\s+/g, " ").trim();
try {
  // The fake OAuth provider has a self-signed certificate.
  const page = await browser.newPage({ viewport: phone, ignoreHTTPSErrors: true });

  // 0. A link that is not valid says so in words.
  await page.goto(env.SB_BAD_LINK);
  await page.locator("#status.error").waitFor();
  out.badText = await text(page.locator("#status"));
  await snap(page, "0-invalid-link");

  // 1. API key account; an empty submit first.
  await page.goto(env.SB_KEY_LINK);
  await page.getByRole("heading", { name: "Delta Tasks" }).waitFor();
  out.keyTitle = await page.title();
  await page.getByRole("button", { name: "Connect Delta Tasks" }).first().click();
  out.emptyText = await text(page.locator("#methods .error").first());
  await snap(page, "1-active");
  await page.getByLabel("API key").fill(env.SB_API_KEY);
  await page.getByLabel("Host and port").first().fill(env.SB_HOST);
  await page.getByRole("button", { name: "Connect Delta Tasks" }).first().click();
  await page.locator("#done").waitFor({ state: "visible" });
  out.keyDone = await text(page.locator("#done-text"));
  out.keyClose = (await page.locator("#done-close").isVisible()) && !(await page.locator("#done-link").isVisible());
  await snap(page, "2-connected");

  // The used link shows its state.
  await page.goto(env.SB_KEY_LINK);
  await page.getByText("already used").waitFor();
  out.usedText = await text(page.locator("#status"));
  await snap(page, "3-used");

  // 2. An unfiltered link: a list by category, searched, then one form.
  await page.goto(env.SB_ALL_LINK);
  await page.locator("#picker").waitFor({ state: "visible" });
  await page.waitForLoadState("load");
  out.allTitle = await text(page.locator("#title"));
  out.pickCount = await page.locator("button.pick").count();
  out.formsBeforeChoice = await page.locator("form").count();
  out.brokenImages = await page.evaluate(() => [...document.images].filter((i) => i.complete && i.naturalWidth === 0).length);
  await snap(page, "4-list");
  await page.getByLabel("Search applications").fill("zeta");
  out.searchVisible = await page.locator("button.pick:visible span:not(.mark)").allTextContents();
  await snap(page, "5-search");
  await page.getByLabel("Search applications").fill("no such thing");
  out.noMatch = await page.locator("#no-match").isVisible();
  await page.getByLabel("Search applications").fill("desk");
  await page.getByRole("button", { name: "Zeta Desk" }).click();
  await page.getByRole("heading", { name: "Zeta Desk" }).waitFor();
  out.formsAfterChoice = await page.locator("form").count();
  await page.getByLabel("API key").fill("zeta-wrong");
  await page.getByRole("button", { name: "Connect Zeta Desk" }).click();
  await page.locator("#methods .error:visible").waitFor();
  out.refusedText = await text(page.locator("#methods .error"));
  await snap(page, "6-refused");

  // 3. Reconnecting a broken account keeps it and replaces its key.
  await page.goto(env.SB_RECONNECT_LINK);
  await page.getByText("needs reconnecting").first().waitFor();
  out.reconnectStatus = await text(page.locator("#status"));
  // A link for one application opens on the reconnect of its broken account.
  out.reconnectFirst = await page.getByRole("button", { name: "Reconnect Zeta Desk" }).isVisible();
  await snap(page, "7-needs-reconnecting");
  await page.getByRole("button", { name: /^Reconnect zed/ }).click();
  out.reconnectNote = await text(page.locator("#connector-note"));
  await page.getByLabel("API key").fill("zeta-new");
  await page.getByRole("button", { name: "Reconnect Zeta Desk" }).click();
  await page.locator("#done").waitFor({ state: "visible" });
  out.reconnectDone = await text(page.locator("#done"));
  await snap(page, "8-reconnected");

  // 4. A link with a redirect: Continue goes there.
  await page.goto(env.SB_REDIRECT_LINK);
  await page.getByLabel("API key").fill("zeta-good");
  await page.getByRole("button", { name: "Connect Zeta Desk" }).click();
  await page.locator("#done-link").waitFor({ state: "visible" });
  out.continueHref = await page.locator("#done-link").getAttribute("href");
  await snap(page, "9-continue");
  await page.locator("#done-link").click();
  await page.waitForURL(/status=success/);
  out.continuedTo = page.url();

  // 5. OAuth account: the provider consents and redirects back.
  await page.goto(env.SB_OAUTH_LINK);
  await page.getByRole("button", { name: "Connect with Epsilon Notes" }).click();
  await page.waitForURL(/\/api\/oauth\/callback/);
  await page.locator("#result").waitFor();
  out.oauthResult = await text(page.locator("#result"));
  await snap(page, "10-oauth-connected");
} catch (err) {
  out.error = String(err && err.stack || err);
}
await browser.close();
console.log(JSON.stringify(out));
if (out.error) process.exit(1);
