import postgres from "postgres";

// Whether DATABASE_URL reaches PostgreSQL directly or through a transaction-mode pooler
// (PgBouncer, Supavisor, RDS Proxy): behind one, each transaction may run on another server
// connection, so named prepared statements (made once per connection) and session settings
// do not carry over. DATABASE_PREPARE decides when set; `npm start` and the CLI otherwise
// ask the server once and set it for the processes they start.

export interface PoolerProbe {
  /** True when the connection supports named prepared statements (nothing in between). */
  prepare: boolean;
  /** Why, in words, for the start-up line. */
  reason: string;
}

/**
 * Two signs of something between us and PostgreSQL, either enough: PgBouncer refuses a
 * startup parameter it does not track ("unsupported startup parameter"); and the server
 * reports listening on another port than the one we dialled (`inet_server_port()`: a pooler
 * or a port-forward — for the latter, unnamed statements cost a little and break nothing).
 */
export async function probePooler(url: string): Promise<PoolerProbe> {
  const dialled = Number(new URL(url).port || 5432);
  const strict = postgres(url, { max: 1, prepare: false, connect_timeout: 5, onnotice: () => {}, connection: { lock_timeout: 1000 } });
  try {
    const [row] = await strict<{ port: number | null }[]>`SELECT inet_server_port() AS port`;
    if (row?.port != null && row.port !== dialled) {
      return { prepare: false, reason: `the server listens on ${row.port}, not on ${dialled} (a pooler or a forwarded port)` };
    }
    return { prepare: true, reason: "a direct connection" };
  } catch (error) {
    if (/unsupported startup parameter/i.test(String((error as Error)?.message))) {
      return { prepare: false, reason: "PgBouncer (it refuses session startup parameters)" };
    }
    throw error;
  } finally {
    await strict.end({ timeout: 1 }).catch(() => {});
  }
}

/** DATABASE_PREPARE when set, else the probe's answer. */
export async function resolvePrepare(url: string): Promise<PoolerProbe> {
  const setting = process.env.DATABASE_PREPARE?.trim().toLowerCase();
  if (setting) {
    const prepare = !["false", "0", "off", "no"].includes(setting);
    return { prepare, reason: `DATABASE_PREPARE=${process.env.DATABASE_PREPARE}` };
  }
  return probePooler(url);
}

/**
 * For `npm start` and the CLI: settles DATABASE_PREPARE for this process and the ones it
 * starts (they inherit the environment), probing only when it is unset.
 */
export async function settlePrepare(url: string): Promise<PoolerProbe> {
  const probe = await resolvePrepare(url);
  process.env.DATABASE_PREPARE = String(probe.prepare);
  return probe;
}
