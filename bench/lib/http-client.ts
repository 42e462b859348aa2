import http from "node:http";

/** A lean keep-alive client (node:http): the bench's own CPU shares the 2 cores with the server. */
export class KeepAliveClient {
  readonly agent: http.Agent;

  constructor(readonly base: string, sockets: number) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  }

  request(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; text: string }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        this.base + path,
        {
          method,
          agent: this.agent,
          headers: { ...headers, ...(payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {}) },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (d: string) => (text += d));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
  }

  close() {
    this.agent.destroy();
  }
}
