/**
 * The game pages' one runtime call (slot, native, crash; docs/game-pages.md): same origin, JSON
 * in and out, the session token in a header only (never a cookie, never the referrer), nothing
 * cached. `window.PageFetch.call(path, { method, body, token })` resolves to
 * `{ status, ok, json }` (`json` null when the answer has no JSON body); each page decides what a
 * 401 or an error means for it.
 */
(() => {
  async function call(path, { method, body, token } = {}) {
    const headers = { accept: 'application/json' };
    if (token) headers['x-session-token'] = token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(path, {
      method: method || (body === undefined ? 'GET' : 'POST'),
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    });
    let json = null;
    try {
      json = await res.json();
    } catch {
      json = null;
    }
    return { status: res.status, ok: res.ok, json };
  }
  window.PageFetch = Object.freeze({ call });
})();
