// Where to go after signing in (`/login?next=`), read by the login page's server-side
// redirect and by the form's navigation. Browsers strip tab, newline and CR from a URL and
// read a backslash as a slash, so "/\t/evil.example" navigates to //evil.example; and any
// layer that decodes once more turns "%2F" or "%5C" into one. So a path survives only if
// it, and every decoding of it, is a plain path that resolves on this site.

const BASE = "http://this-site.invalid";
const CONTROL_OR_BACKSLASH = /[\u0000-\u001f\u007f\\]/;
const MAX_DECODINGS = 3;

function plainPath(path: string): boolean {
  if (!path.startsWith("/") || path.startsWith("//") || CONTROL_OR_BACKSLASH.test(path)) return false;
  return new URL(path, BASE).origin === BASE;
}

/** `next` if it is a same-origin path however often it is decoded, else "/". */
export function safeNext(value: string | string[] | undefined | null): string {
  const next = Array.isArray(value) ? value[0] : value;
  if (!next) return "/";
  let candidate = next;
  for (let i = 0; i <= MAX_DECODINGS; i++) {
    if (!plainPath(candidate)) return "/";
    let decoded: string;
    try {
      decoded = decodeURIComponent(candidate);
    } catch {
      return "/"; // broken percent-encoding: no path a link of ours makes
    }
    if (decoded === candidate) return next;
    candidate = decoded;
  }
  return "/";
}
