import http from "node:http";
import https from "node:https";
import { lookup } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { addressRefusal } from "./targets";

// One HTTP POST of a delivery. node:http rather than fetch: its `lookup` hook sees the address
// every connection goes to, so a host that resolves to a refused address is refused at
// connect time, not only when registered. Node connects to an IP literal without calling
// `lookup`, so a URL naming an address is judged here before any connection. No redirects
// are followed (a 3xx is a failed try).

export const DELIVERY_TIMEOUT_MS = 10_000;
/** The receiver's answer kept for the delivery log: enough to read an error page's first line. */
const KEPT_ANSWER = 300;

export interface Outcome {
  status: number | null;
  error: string | null;
}

/** DNS lookup that refuses an address the rules refuse (addressRefusal), at every connection: also used by the OAuth client metadata fetch. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "", 4);
    const list = addresses as { address: string; family: number }[];
    const refused = list.map((a) => addressRefusal(a.address)).find((r) => r !== null);
    if (refused) return callback(Object.assign(new Error(`refused: ${refused}`), { code: "EREFUSED_TARGET" }), "", 4);
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};

export function postDelivery(url: string, headers: Record<string, string>, body: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const literal = target.hostname.replace(/^\[|\]$/g, "");
    const refused = isIP(literal) ? addressRefusal(literal) : null;
    if (refused) return resolve({ status: null, error: `refused: ${refused}` });
    const client = target.protocol === "https:" ? https : http;
    const request = client.request(target, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body).toString(), "user-agent": "Claimboard-Webhooks/1", ...headers },
      lookup: guardedLookup,
      timeout: DELIVERY_TIMEOUT_MS,
    }, (response) => {
      const status = response.statusCode ?? 0;
      let kept = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => { if (kept.length < KEPT_ANSWER) kept += chunk; });
      response.on("end", () => {
        resolve({ status, error: status >= 200 && status < 300 ? null : `HTTP ${status}${kept ? `: ${kept.slice(0, KEPT_ANSWER).trim()}` : ""}` });
      });
      response.on("error", (error) => resolve({ status, error: error.message }));
    });
    request.on("timeout", () => request.destroy(new Error(`no answer in ${DELIVERY_TIMEOUT_MS / 1000} s`)));
    request.on("error", (error) => resolve({ status: null, error: error.message }));
    request.end(body);
  });
}
