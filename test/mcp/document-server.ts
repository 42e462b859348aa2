import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "@/db/embedded";

// A local https server for Client ID Metadata Documents: a self-signed certificate for
// 127.0.0.1 made here with openssl (one day, its own temporary folder), and documents the
// test sets per path. Nothing leaves the machine. The app server trusts the certificate by
// NODE_EXTRA_CA_CERTS (certPath); a test in-process passes `ca` to the fetch.

export interface Served {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as it is. */
  body: unknown;
  /** Wait this long before answering (a slow server). */
  delayMs?: number;
}

export interface DocumentServer {
  origin: string;
  certPath: string;
  ca: string;
  /** Serves `served` at `pathname`; the document's URL. */
  serve(pathname: string, served: Served): string;
  /** How many GETs each path had. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

export async function startDocumentServer(): Promise<DocumentServer> {
  const dir = mkdtempSync(path.join(tmpdir(), "claimboard-cimd-"));
  const keyPath = path.join(dir, "key.pem");
  const certPath = path.join(dir, "cert.pem");
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", keyPath, "-out", certPath,
  ], { stdio: "ignore" });
  const ca = readFileSync(certPath, "utf8");
  const routes = new Map<string, Served>();
  const hits = new Map<string, number>();
  const server: Server = createServer({ key: readFileSync(keyPath), cert: ca }, (req, res) => {
    const pathname = new URL(req.url!, "https://127.0.0.1").pathname;
    hits.set(pathname, (hits.get(pathname) ?? 0) + 1);
    const served = routes.get(pathname);
    if (!served) return res.writeHead(404).end();
    const answer = () => {
      const body = typeof served.body === "string" ? served.body : JSON.stringify(served.body);
      if (!res.destroyed) res.writeHead(served.status ?? 200, { "content-type": "application/json", ...served.headers }).end(body);
    };
    if (served.delayMs) setTimeout(answer, served.delayMs);
    else answer();
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const origin = `https://127.0.0.1:${port}`;
  return {
    origin,
    certPath,
    ca,
    hits,
    serve(pathname, served) {
      routes.set(pathname, served);
      return `${origin}${pathname}`;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
