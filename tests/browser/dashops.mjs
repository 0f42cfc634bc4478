// Drives the operator dashboard's operations screens in headless Chromium:
// signs in, creates an API key, creates a connect link for a user and
// connects their account through it, runs a tool with the new key (as a
// backend would), finds the call in the execution log, registers a webhook,
// sends it a test event and retries the delivery. Every screen is checked
// with axe-core (serious and critical violations are reported). Prints one
// JSON document of what it saw.
//
//   SB_BASE=<url> SB_PROJECT=<id> SB_EMAIL=… SB_PASSWORD=… SB_API_KEY=<provider key>
//   SB_HOST=<provider host> SB_SHOTS=<dir> node dashops.mjs
import { chromium } from "playwright-core";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const env = process.env;
const out = { axe: {} };
const browser = await chromium.launch({
  executablePath: env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
const shots = env.SB_SHOTS || "";
const desktop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };
const base = env.SB_BASE;
const p = `${base}/dashboard/p/${env.SB_PROJECT}`;
const text = async (loc) => ((await loc.textContent()) || "").replace(/\s+/g, " ").trim();

// check runs axe-core on the page and keeps its serious and critical
// violations under name; with SB_SHOTS it saves desktop and phone shots.
const check = async (page, name) => {
  await page.evaluate(axeSource);
  out.axe[name] = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
  // Usable at phone width: nothing wider than the screen but the tables'
  // own scrolling boxes.
  await page.setViewportSize(phone);
  await page.waitForTimeout(50);
  out.overflow = out.overflow || {};
  out.overflow[name] = await page.evaluate(() => {
    if (document.documentElement.scrollWidth <= window.innerWidth + 1) return "";
    const wide = [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1
      && !e.closest(".table-wrap") && !e.closest("pre") && !e.closest(".screens ul"));
    const all = [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1);
    return (wide.slice(0, 3).map((e) => `${e.tagName}.${e.className}#${e.id}`).join(" ") || "?") + ` ${document.documentElement.scrollWidth} ` +
      all.slice(0, 4).map((e) => `${e.tagName}.${e.className}`).join(" ");
  });
  if (shots) {
    await page.setViewportSize(desktop);
    await page.screenshot({ path: `${shots}/dash-${name}-desktop.png`, fullPage: true });
    await page.setViewportSize(phone);
    await page.screenshot({ path: `${shots}/dash-${name}-phone.png`, fullPage: true });
  }
  await page.setViewportSize(desktop);
};

let page;
try {
  // The CSP allows no inline script: axe is evaluated through the
  // DevTools protocol, which the context lets past the policy.
  const ctx = await browser.newContext({ viewport: desktop, bypassCSP: true });
  page = await ctx.newPage();

  // Sign in.
  await page.goto(`${base}/dashboard/signin`);
  await page.getByLabel("Email").fill(env.SB_EMAIL);
  await page.getByLabel("Password").fill(env.SB_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/dashboard\/p\//);

  // Empty states first.
  for (const screen of ["logs", "approvals", "webhooks", "users", "connect", "triggers", "sessions", "connectors"]) {
    await page.goto(`${p}/${screen}`);
    out[`empty_${screen}`] = await text(page.locator("main"));
    await check(page, `${screen}-empty`);
  }

  // An API key, read from the page that shows it once.
  await page.goto(`${p}/keys`);
  await page.getByLabel("Name").fill("browser backend");
  await page.getByRole("button", { name: "Create key" }).click();
  const apiKey = await page.locator("#new-key").inputValue();
  out.keyShown = apiKey.startsWith("sb_");

  // A connect link for ann, opened and used.
  await page.goto(`${p}/connect`);
  await page.getByLabel("User ID").fill("ann");
  await page.getByLabel(/^Connectors/).fill("delta");
  await page.getByRole("button", { name: "Create link" }).click();
  const link = await page.locator("#new-link").inputValue();
  out.linkShown = link.includes("/connect/");
  await check(page, "connect-link");
  const user = await browser.newPage({ viewport: phone });
  await user.goto(link);
  await user.getByLabel("API key").fill(env.SB_API_KEY);
  await user.getByLabel("Host and port").first().fill(env.SB_HOST);
  await user.getByRole("button", { name: "Connect Delta Tasks" }).first().click();
  await user.locator("#done").waitFor({ state: "visible" });
  out.connected = await text(user.locator("#done-text"));
  await user.close();

  // ann's account on the end users screen.
  await page.goto(`${p}/users?userId=ann`);
  out.usersText = await text(page.locator("main"));
  await check(page, "users");

  // The backend runs a tool with the key made in the dashboard.
  const res = await page.request.post(`${base}/v1/tools/execute`, {
    headers: { Authorization: `Bearer ${apiKey}` },
    data: { toolId: "delta_create_task", userId: "ann", input: { title: "from the browser test" } },
  });
  out.toolStatus = res.status();

  // The call in the execution log (written in batches: reload until there).
  for (let i = 0; i < 40; i++) {
    await page.goto(`${p}/logs`);
    if (await page.getByRole("cell", { name: "delta_create_task" }).count()) break;
    await page.waitForTimeout(250);
  }
  out.logRow = await text(page.locator("tbody tr").first());
  await check(page, "logs");
  await page.getByRole("link", { name: /^Detail of the call/ }).first().click();
  out.logDetail = await text(page.locator("main"));
  await check(page, "log");
  await page.goto(`${p}/logs?userId=nobody`);
  out.logFiltered = await text(page.locator("main"));

  // A webhook: created (secret shown once), a test event, a retry.
  await page.goto(`${p}/webhooks`);
  await page.getByLabel("URL").fill("https://hooks.example.com/switchboard");
  await page.getByLabel("approval.requested").check();
  await page.getByRole("button", { name: "Add webhook" }).click();
  out.secretShown = (await page.locator("#new-secret").inputValue()).startsWith("whsec_");
  await check(page, "webhooks");
  await page.getByRole("link", { name: "Deliveries and test event" }).click();
  await page.getByRole("button", { name: "Send test event" }).click();
  out.testFlash = await text(page.locator(".flash"));
  await page.getByRole("button", { name: /^Retry delivery/ }).first().click();
  out.retryFlash = await text(page.locator(".flash"));
  out.deliveryRow = await text(page.locator("tbody tr").first());
  await check(page, "webhook");

  // The rest of the screens with something on them.
  for (const screen of ["approvals", "triggers", "sessions"]) {
    await page.goto(`${p}/${screen}`);
    await check(page, screen);
  }
} catch (err) {
  out.error = String(err && err.stack ? err.stack : err);
  if (page) {
    out.errorURL = page.url();
    out.errorText = ((await page.locator("main").textContent().catch(() => "")) || "").replace(/\s+/g, " ").trim().slice(0, 500);
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
