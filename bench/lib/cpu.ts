import fs from "node:fs";
import type postgres from "postgres";

/**
 * CPU time spent by the PostgreSQL server's processes (the postmaster and every child: backends,
 * WAL writer, checkpointer, autovacuum), read from /proc — what a drain costs the server, beside
 * what its client costs. Only for a server on this machine; null elsewhere (another host, a
 * container with its own process ids, not Linux), and the rows that need it say so.
 *
 * Live processes are read from /proc/<pid>/schedstat (nanoseconds on the CPU); the children that
 * exited since the last reading are in the postmaster's cutime and cstime (clock ticks).
 */
export async function serverCpu(admin: postgres.Sql): Promise<(() => number) | null> {
  const [{ pid }] = (await admin`SELECT pg_backend_pid() AS pid`) as unknown as [{ pid: number }];
  const backend = stat(pid);
  if (!backend || backend.comm !== "postgres") return null;
  const postmaster = stat(backend.ppid);
  if (!postmaster || postmaster.comm !== "postgres") return null;
  const tick = 1000 / 100; // ms a clock tick: USER_HZ is 100 on Linux's every architecture we run on
  /** Milliseconds of CPU the server has used so far. */
  return () => {
    let ms = onCpuMs(backend.ppid);
    const self = stat(backend.ppid);
    if (self) ms += (self.cutime + self.cstime) * tick;
    for (const entry of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      const child = stat(Number(entry));
      if (child?.ppid === backend.ppid) ms += onCpuMs(Number(entry));
    }
    return ms;
  };
}

interface ProcStat { comm: string; ppid: number; cutime: number; cstime: number }

/** /proc/<pid>/stat's fields we need, or null once the process is gone. */
function stat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ")".
  const comm = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")"));
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { comm, ppid: Number(fields[1]), cutime: Number(fields[13]), cstime: Number(fields[14]) };
}

function onCpuMs(pid: number): number {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    return 0; // exited between the listing and the read: its time is in the postmaster's cutime next time
  }
}
