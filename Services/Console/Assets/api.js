// The console's one way to the gateway: the public API under /console/api/v1/apps/{app}
// and the console's own calls under /console/api. The key is kept in sessionStorage (this
// tab, until it closes or signs out) and sent only in the Authorization header.
const storageKey = "herald.console.session";

export function session() {
  try {
    return JSON.parse(sessionStorage.getItem(storageKey) || "null");
  } catch {
    return null;
  }
}

export function forget() {
  sessionStorage.removeItem(storageKey);
}

/// Signs in: the gateway checks the key has the console (or admin) scope for the app.
export async function signIn(app, key) {
  const answer = await request("/session", { method: "POST", body: { app }, key });
  if (answer.ok) sessionStorage.setItem(storageKey, JSON.stringify({ app, key, keyId: answer.body.keyId, platforms: answer.body.platforms, traceURL: answer.body.traceURL }));
  return answer;
}

/// A call of the public API, `path` below /v1/apps/{app}.
export function call(path, options = {}) {
  const current = session();
  return request(`/v1/apps/${encodeURIComponent(current.app)}${path}`, options);
}

/// A call of the console's own API for the signed-in app, `path` below /apps/{app}.
export function consoleCall(path, options = {}) {
  const current = session();
  return request(`/apps/${encodeURIComponent(current.app)}${path}`, options);
}

/// Answers { ok, status, body, headers }; a problem's body is its problem+json object.
export async function request(path, { method = "GET", body, headers = {}, key } = {}) {
  const secret = key ?? session()?.key;
  const sent = { Accept: "application/json", ...headers };
  if (secret) sent.Authorization = `Bearer ${secret}`;
  let payload;
  if (body !== undefined) {
    sent["Content-Type"] = "application/json";
    payload = typeof body === "string" ? body : JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(`/console/api${path}`, { method, headers: sent, body: payload, credentials: "omit", cache: "no-store" });
  } catch (error) {
    return { ok: false, status: 0, body: { title: "Unreachable", detail: `the gateway did not answer: ${error.message}` }, headers: new Headers() };
  }
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { detail: text };
  }
  if (response.status === 401 && !key) {
    forget();
    window.dispatchEvent(new CustomEvent("herald:signed-out", { detail: parsed }));
  }
  return { ok: response.ok, status: response.status, body: parsed, headers: response.headers };
}
