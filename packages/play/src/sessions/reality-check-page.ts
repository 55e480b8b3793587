import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * The session bar (time played, net position) and the reality-check pause that every game page
 * shows (slot, native, crash): the markup, and one script and style sheet
 * (`src/sessions/static/reality-check.js`, `.css`) that each page includes before its own. Each
 * page family serves them under its own content-hashed static path (`/gs2c/static/`,
 * `/native/static/`, `/games/assets/`), so they stay same-origin under the page's CSP and are
 * cached for good like the page's own files.
 */
export interface RealityCheckAsset {
  /** `<prefix>reality-check-<content hash>.<ext>`: a changed file gets a new URL. */
  path: string;
  type: string;
  body: Buffer;
}

export interface RealityCheckAssets {
  js: RealityCheckAsset;
  css: RealityCheckAsset;
}

/** Served as written (no build step), from `src/sessions/static/` whether running src/ or dist/. */
const STATIC_DIR = new URL('../../src/sessions/static/', import.meta.url);

function load(prefix: string, ext: string, type: string): RealityCheckAsset {
  const body = readFileSync(new URL(`reality-check.${ext}`, STATIC_DIR));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `${prefix}reality-check-${hash}.${ext}`, type, body };
}

/** The shared script and style sheet at paths under `prefix` (the page family's static folder). */
export function loadRealityCheckAssets(prefix: string): RealityCheckAssets {
  return {
    js: load(prefix, 'js', 'text/javascript; charset=utf-8'),
    css: load(prefix, 'css', 'text/css; charset=utf-8'),
  };
}

/** The session bar the script fills in: `session-elapsed` (h:mm:ss) and `session-net`. */
export function sessionPlayBar(options: { hidden?: boolean } = {}): string {
  return `<section class="session-play" data-testid="session-play" aria-label="This session"${options.hidden ? ' hidden' : ''}>
    <div class="stat"><span class="label">Time played</span><output data-testid="session-elapsed" data-elapsed-ms="">&#8230;</output></div>
    <div class="stat"><span class="label">Net position</span><output data-testid="session-net" data-net-minor="">&#8230;</output></div>
  </section>`;
}

/** The reality-check pause (hidden until the script opens it). */
export function realityCheckDialog(): string {
  return `<section class="reality-check" data-testid="reality-check" role="alertdialog" aria-modal="true" aria-labelledby="reality-check-title" hidden>
    <h2 id="reality-check-title">Reality check</h2>
    <p data-testid="reality-check-text"></p>
    <div class="actions">
      <button type="button" data-testid="reality-check-continue">Continue playing</button>
      <button type="button" data-testid="reality-check-leave">Leave the game</button>
    </div>
  </section>`;
}
