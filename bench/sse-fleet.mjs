// The silent part of the SSE benchmark's subscribers, in a process of its own so that their
// reads do not delay the timed probes' callbacks in the bench process (in production these
// clients sit on other machines). Opens N streams, reads and discards every byte, prints
// "ready" once each has received its first bytes, and exits when stdin closes.
//   node bench/sse-fleet.mjs <url> <token> <count>
import http from "node:http";

const [url, token, countArg] = process.argv.slice(2);
const count = Number(countArg);
let ready = 0;
const requests = [];
for (let i = 0; i < count; i++) {
  let first = true;
  const request = http.get(url, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
    if (res.statusCode !== 200) {
      console.error(`events answered ${res.statusCode}`);
      process.exit(1);
    }
    res.on("data", () => {
      if (!first) return;
      first = false;
      if (++ready === count) console.log("ready");
    });
  });
  request.on("error", () => {});
  requests.push(request);
  if (i % 50 === 49) await new Promise((r) => setTimeout(r, 20)); // no SYN storm
}
process.stdin.resume();
process.stdin.on("end", () => {
  for (const r of requests) r.destroy();
  process.exit(0);
});
