// Drives the operator dashboard in headless Chromium: signs in, creates a
// project, an API key, an endpoint and an OAuth client, switches a tool
// off, renames the project and signs out. On every screen it runs axe-core
// and records the serious and critical violations, and it records any
// Content-Security-Policy violation. Prints one JSON document of what it saw.
//
//   SB_BASE=<web url> SB_EMAIL=… SB_PASSWORD=… SB_SHOTS=<dir> node dashboard.mjs
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const env = process.env;
const base = env.SB_BASE;
const out = { axe: {}, csp: [] };
const browser = await chromium.launch({
  executablePath: env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
const shots = env.SB_SHOTS || "";
const desktop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };
// current is the page in use, for the error report.
let current;
const text = async (loc) => ((await loc.textContent()) || "").replace(/\s+/g, " ").trim();

// check runs axe-core on the page (evaluated through the debugging
// protocol, which the page's CSP does not govern) and keeps the serious
// and critical violations, at desktop and phone widths, checks that the
// page does not scroll sideways on a phone, and with SB_SHOTS saves it at
// both widths.
const check = async (page, name) => {
  await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
  out.axe[name] = found;
  if (shots) await page.screenshot({ path: `${shots}/dashboard-${name}-desktop.png`, fullPage: true });
  await page.setViewportSize(phone);
  // Axe at phone width too: contrast and overlap can differ.
  const small = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id);
  });
  if (small.length) out.axe[name + "@phone"] = small;
  // The page may not scroll sideways at phone width (wide tables and the
  // navigation scroll inside their own boxes).
  const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  if (wide > 0) (out.overflow ||= {})[name] = [`${wide}px too wide`];
  if (shots) await page.screenshot({ path: `${shots}/dashboard-${name}-phone.png`, fullPage: true });
  await page.setViewportSize(desktop);
};

try {
  const context = await browser.newContext({ viewport: desktop });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
  const page = await context.newPage();
  current = page;
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) out.csp.push(m.text());
  });

  // Signed out, the dashboard sends the browser to the sign-in page.
  await page.goto(base + "/dashboard");
  out.signinURL = page.url();
  await check(page, "signin");
  await page.getByLabel("Email").fill(env.SB_EMAIL);
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  out.wrongPassword = await text(page.locator(".error"));
  await page.getByLabel("Password").fill(env.SB_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Projects", level: 1 }).waitFor();
  out.emptyProjects = await text(page.locator(".empty"));
  await check(page, "projects-empty");

  // A project: created from the projects screen, it opens on its keys.
  await page.getByLabel("Project name").fill("Acme");
  await page.getByRole("button", { name: "Create project" }).click();
  await page.getByRole("heading", { name: "API keys", level: 1 }).waitFor();
  out.projectURL = page.url();
  out.keysFlash = await text(page.locator(".flash"));
  out.keysEmpty = await text(page.locator(".empty"));
  await check(page, "keys-empty");

  // An API key, shown once with a copy button.
  await page.getByLabel("Name", { exact: true }).fill("backend");
  await page.getByLabel("Expires after").selectOption("720h");
  await page.getByRole("button", { name: "Create key" }).click();
  out.key = await page.locator("#new-key").inputValue();
  await page.getByRole("button", { name: "Copy New API key" }).click();
  await page.locator('button[data-copy="new-key"]', { hasText: "Copied" }).waitFor();
  out.clipboard = await page.evaluate(() => navigator.clipboard.readText());
  out.keyRows = await page.locator("tbody tr").count();
  await check(page, "key-created");
  // (Opened again, not reloaded: a reload would post the form again.)
  await page.goto(out.projectURL);
  out.keyShownAgain = (await page.content()).includes(out.key);

  // An MCP endpoint with its URLs and client configuration.
  await page.getByRole("link", { name: "MCP endpoints" }).click();
  out.endpointsEmpty = await text(page.locator(".empty"));
  await page.getByLabel("Slug").fill("support");
  await page.getByLabel("Require a user in the URL").check();
  await page.getByRole("button", { name: "Create endpoint" }).click();
  await page.getByRole("heading", { name: "support" }).waitFor();
  out.endpointURLs = await page.locator("#endpoint-support input[readonly]").evaluateAll((els) => els.map((e) => e.value));
  await page.locator("#endpoint-support summary").click();
  out.cursorConfig = await text(page.locator("pre[id^='cfg-cursor-']"));
  await check(page, "endpoints");

  // The catalog: search, open a connector, switch one tool off.
  await page.getByRole("link", { name: "Catalog" }).click();
  await check(page, "catalog");
  await page.getByLabel("Search connectors").fill("invoice");
  await page.getByRole("button", { name: "Search" }).click();
  out.searchResults = await page.locator("ul.grid strong").allTextContents();
  await page.getByRole("link", { name: "Beta Books" }).click();
  await page.getByRole("button", { name: "Turn off beta_delete_invoice" }).click();
  out.toolFlash = await text(page.locator(".flash"));
  out.toolOff = await page.getByRole("button", { name: "Turn on beta_delete_invoice" }).isVisible();
  await page.locator("#tool-beta_create_invoice details summary").click();
  await check(page, "connector");

  // An OAuth client, with the redirect URL to register.
  await page.getByRole("link", { name: "OAuth clients" }).click();
  out.redirectURL = await page.locator("#redirect-url").inputValue();
  await page.getByLabel("Connector", { exact: true }).selectOption("alpha");
  await page.getByLabel("Client id", { exact: true }).fill("alpha-client-id");
  await page.getByLabel("Client secret").fill("alpha-client-secret");
  await page.getByRole("button", { name: "Save OAuth client" }).click();
  out.oauthFlash = await text(page.locator(".flash"));
  const html = await page.content();
  out.oauthListed = html.includes("alpha-client-id");
  out.oauthSecretShown = html.includes("alpha-client-secret");
  await check(page, "oauth-clients");

  // An operator invited by email gets a one-time sign-in link.
  await page.getByRole("link", { name: "Operators" }).click();
  await page.getByLabel("Email").fill("teammate@example.com");
  await page.getByRole("button", { name: "Add operator" }).click();
  out.inviteLink = await page.locator("#signin-link").inputValue();
  await check(page, "operators");

  // Rename the project.
  await page.getByRole("link", { name: "Projects" }).click();
  await page.getByLabel("New name").first().fill("Acme Inc");
  await page.getByRole("button", { name: "Rename" }).first().click();
  out.renameFlash = await text(page.locator(".flash"));
  await check(page, "projects");

  // Without JavaScript the core forms still work: create a second key.
  const nojs = await browser.newContext({ viewport: phone, javaScriptEnabled: false, storageState: await context.storageState() });
  const p2 = await nojs.newPage();
  await p2.goto(out.projectURL);
  await p2.getByLabel("Name", { exact: true }).fill("no-js");
  await p2.getByRole("button", { name: "Create key" }).click();
  out.noJSKey = /sb_[0-9a-f]{64}/.test(await p2.locator("#new-key").inputValue());
  await nojs.close();

  // Sign out ends the session.
  await page.getByRole("button", { name: "Sign out" }).click();
  out.signedOut = await text(page.locator(".flash"));
  await page.goto(out.projectURL);
  out.afterSignOut = page.url();
} catch (err) {
  out.error = String((err && err.stack) || err);
  // Where it stopped, and what the page said there.
  if (current) out.at = current.url() + " " + ((await current.locator("main").textContent().catch(() => "")) || "").replace(/\s+/g, " ").slice(0, 400);
}
await browser.close();
console.log(JSON.stringify(out));
if (out.error) process.exit(1);
