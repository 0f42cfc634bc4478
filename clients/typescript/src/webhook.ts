import { WebhookVerificationError } from "./errors.js";
import type { TriggerFiredEvent } from "./types.js";

/** Headers as a Headers object, or a plain record (Node's IncomingHttpHeaders). */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/** Options of verifyWebhook. */
export interface VerifyWebhookOptions {
  /** How far webhook-timestamp may be from now, in seconds; default 300. */
  toleranceSeconds?: number;
  /** The current time in milliseconds (tests set it); default Date.now(). */
  now?: number;
}

function header(h: HeaderSource, name: string): string | undefined {
  if (typeof (h as Headers).get === "function") return (h as Headers).get(name) ?? undefined;
  const rec = h as Record<string, string | string[] | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : rec[key];
  return Array.isArray(v) ? v.join(" ") : v;
}

function fromBase64(s: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined;
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * Verifies a Switchboard webhook delivery (Standard Webhooks: the
 * webhook-id, webhook-timestamp and webhook-signature headers, HMAC-SHA256
 * keyed with the base64 part of the endpoint's whsec_ secret) and returns
 * the decoded trigger.fired event. Pass the body exactly as received (a
 * string or bytes): re-encoded JSON does not verify. Throws
 * WebhookVerificationError when the delivery is not proven genuine; answer
 * such a request 400 or 401. Uses Web Crypto, so it runs on Node.js 20+,
 * Deno, Bun and edge runtimes.
 */
export async function verifyWebhook(
  secret: string,
  headers: HeaderSource,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): Promise<TriggerFiredEvent> {
  const key = fromBase64(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret);
  if (key === undefined || key.length === 0) throw new TypeError("verifyWebhook: the secret is not whsec_ followed by base64");
  const id = header(headers, "webhook-id");
  const ts = header(headers, "webhook-timestamp");
  const sigs = header(headers, "webhook-signature");
  if (!id || !ts || !sigs) throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature");
  if (!/^\d+$/.test(ts)) throw new WebhookVerificationError("webhook-timestamp is not a number");
  const now = (options.now ?? Date.now()) / 1000;
  if (Math.abs(now - Number(ts)) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError("webhook-timestamp is too far from now");
  }
  const bodyBytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const prefix = new TextEncoder().encode(`${id}.${ts}.`);
  const signed = new Uint8Array(prefix.length + bodyBytes.length);
  signed.set(prefix);
  signed.set(bodyBytes, prefix.length);
  const cryptoKey = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  for (const sig of sigs.split(" ")) {
    const [version, b64] = sig.split(",", 2);
    if (version !== "v1" || b64 === undefined) continue;
    const mac = fromBase64(b64);
    // subtle.verify compares in constant time.
    if (mac !== undefined && (await crypto.subtle.verify("HMAC", cryptoKey, mac, signed))) {
      return JSON.parse(new TextDecoder().decode(bodyBytes)) as TriggerFiredEvent;
    }
  }
  throw new WebhookVerificationError("no signature matches");
}
