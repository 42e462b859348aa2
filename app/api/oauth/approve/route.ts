import { getDatabase } from "@/db";
import { currentUser } from "@/lib/auth/session";
import { withTransportSecurity } from "@/lib/http/transport";
import { checkAuthorizeRequest, redirectWith } from "@/lib/oauth/authorize";
import { issuer, type Scope } from "@/lib/oauth/config";
import { rememberDocumentClient } from "@/lib/oauth/client-documents";
import { issueCode } from "@/lib/oauth/grants";

// POST /api/oauth/approve: the consent page's form. The person's session (next-auth
// cookie, SameSite=Lax) and an Origin of this site are required; the authorization request
// is checked again as on the page (a metadata document's client is stored only now, on
// approval); an approval issues a one-time code for the client's
// registered redirect_uri. The answer sends the browser on with a small page (meta refresh
// and a link) rather than a 303: the pages' CSP `form-action 'self'` would stop a form's
// redirect to the app's own address.

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(status: number, title: string, body: string, refresh?: string): Response {
  const meta = refresh ? `<meta http-equiv="refresh" content="0;url=${escapeHtml(refresh)}">` : "";
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8">${meta}<title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
  return new Response(html, {
    status,
    headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" },
  });
}

const onward = (url: string, title: string) => page(200, title, `<p><a href="${escapeHtml(url)}">Continue to the app</a></p>`, url);

export async function POST(request: Request): Promise<Response> {
  const answer = (response: Response) => withTransportSecurity(request, response);
  const base = issuer(request);
  const origin = request.headers.get("origin");
  if (origin === null || (origin !== base && origin !== new URL(request.url).origin)) {
    return answer(page(403, "Refused", "<p>Approvals are accepted only from Claimboard's own consent page.</p>"));
  }
  const user = await currentUser();
  if (!user) return answer(page(401, "Sign in first", `<p><a href="/login">Sign in</a>, then connect the app again.</p>`));
  const text = await request.text();
  if (text.length > 16 * 1024) return answer(page(413, "Refused", "<p>The form is too large.</p>"));
  const form = new URLSearchParams(text);
  const { db } = getDatabase();
  const checked = await checkAuthorizeRequest(db, form, user, base);
  if (checked.kind === "page-error") return answer(page(400, "This connection cannot be made", `<p>${escapeHtml(checked.message)}</p>`));
  if (checked.kind === "redirect") return answer(onward(checked.url, "Returning to the app"));
  const granted = form.getAll("grant").filter((s): s is Scope => (checked.offered as string[]).includes(s));
  if (form.get("decision") !== "approve" || granted.length === 0) {
    const denied = redirectWith(checked.redirectUri, { error: "access_denied", error_description: "The person did not approve the connection", state: checked.state, iss: base });
    return answer(onward(denied, "Not connected"));
  }
  if (checked.document) await rememberDocumentClient(db, checked.document);
  const code = await issueCode(db, {
    clientId: checked.client.id, personId: user.actor.id, redirectUri: checked.redirectUri, scopes: granted, codeChallenge: checked.codeChallenge, resource: checked.resource,
  });
  return answer(onward(redirectWith(checked.redirectUri, { code, state: checked.state, iss: base }), `Connected ${checked.client.name}`));
}
