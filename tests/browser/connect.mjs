// Opens hosted Connect pages in headless Chromium and connects accounts:
// an API-key account through its form, and an OAuth account through the
// provider's consent redirect. Prints one JSON document of what it saw.
//
//   SB_KEY_LINK=<url> SB_OAUTH_LINK=<url> SB_SHOTS=<dir> node connect.mjs
import { chromium } from "playwright-core";

const out = {};
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
const shots = process.env.SB_SHOTS || "";
const snap = async (page, name) => { if (shots) await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true }); };
try {
  // Phone width; the fake OAuth provider has a self-signed certificate.
  const page = await browser.newPage({ viewport: { width: 390, height: 844 }, ignoreHTTPSErrors: true });

  // 1. API key account.
  await page.goto(process.env.SB_KEY_LINK);
  await page.getByRole("heading", { name: "Delta Tasks" }).waitFor();
  out.keyTitle = await page.title();
  await snap(page, "1-active");
  await page.getByLabel("API key").fill(process.env.SB_API_KEY);
  await page.getByLabel("Host and port").first().fill(process.env.SB_HOST);
  await page.getByRole("button", { name: "Connect Delta Tasks" }).first().click();
  await page.locator("#done").waitFor({ state: "visible" });
  out.keyDone = (await page.locator("#done-text").textContent()).trim();
  await snap(page, "2-connected");

  // The used link shows its state.
  await page.goto(process.env.SB_KEY_LINK);
  await page.getByText("already used").waitFor();
  out.usedText = (await page.locator("#status").textContent()).trim();
  await snap(page, "3-used");

  // 2. OAuth account: the provider consents and redirects back.
  await page.goto(process.env.SB_OAUTH_LINK);
  await page.getByRole("button", { name: "Connect with Epsilon Notes" }).click();
  await page.waitForURL(/\/api\/oauth\/callback/);
  await page.locator("#result").waitFor();
  out.oauthResult = (await page.locator("#result").textContent()).replace(/\s+/g, " ").trim();
  await snap(page, "4-oauth-connected");
} catch (err) {
  out.error = String(err && err.stack || err);
}
await browser.close();
console.log(JSON.stringify(out));
if (out.error) process.exit(1);
