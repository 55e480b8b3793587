import { loadStaticAsset, type StaticAsset, staticDir } from '../pages/static-assets.js';

/**
 * The session bar (time played, net position) and the reality-check pause that every game page
 * shows (slot, native, crash): the markup, and one script and style sheet
 * (`src/sessions/static/reality-check.js`, `.css`) that each page includes before its own. Each
 * page family serves them under its own content-hashed static path (`/gs2c/static/`,
 * `/native/static/`, `/games/assets/`), so they stay same-origin under the page's CSP and are
 * cached for good like the page's own files.
 */
/** `<prefix>reality-check-<content hash>.<ext>`: a changed file gets a new URL (the one loader's asset). */
export type RealityCheckAsset = StaticAsset;

export interface RealityCheckAssets {
  js: RealityCheckAsset;
  css: RealityCheckAsset;
  /**
   * The balance keeper (`src/sessions/static/balance.js`, `window.BalanceKeeper`) every page's
   * script shows its balance through: the page ends on the newest balance the wallet gave, whatever
   * the order of a money action's answer, a refresh signal and its own reads (docs/game-pages.md).
   */
  balance: RealityCheckAsset;
  /**
   * Amounts in the session's display unit (`src/sessions/static/money.js`, `window.UnitMoney`;
   * issue 39): exact digit work on minor-unit strings, never a float (docs/currencies.md).
   */
  money: RealityCheckAsset;
  /**
   * The game pages' one runtime call (`src/sessions/static/page-fetch.js`, `window.PageFetch`):
   * same origin, the session token in a header only, nothing cached.
   */
  fetch: RealityCheckAsset;
}

/** Served as written (no build step), from `src/sessions/static/` whether running src/ or dist/. */
const STATIC_DIR = staticDir(import.meta.url, 'sessions/static');

/** The shared script and style sheet at paths under `prefix` (the page family's static folder). */
export function loadRealityCheckAssets(prefix: string): RealityCheckAssets {
  return {
    js: loadStaticAsset(STATIC_DIR, prefix, 'reality-check', 'js'),
    css: loadStaticAsset(STATIC_DIR, prefix, 'reality-check', 'css'),
    balance: loadStaticAsset(STATIC_DIR, prefix, 'balance', 'js'),
    money: loadStaticAsset(STATIC_DIR, prefix, 'money', 'js'),
    fetch: loadStaticAsset(STATIC_DIR, prefix, 'page-fetch', 'js'),
  };
}

/** The shared scripts' tags (runtime call, money, balance keeper, then reality check), before the page's own (all `defer`). */
export function sharedScriptTags(assets: RealityCheckAssets | undefined, esc: (s: string) => string): string {
  if (!assets) return '';
  return (
    `<script src="${esc(assets.fetch.path)}" defer></script>\n` +
    `<script src="${esc(assets.money.path)}" defer></script>\n` +
    `<script src="${esc(assets.balance.path)}" defer></script>\n` +
    `<script src="${esc(assets.js.path)}" defer></script>\n`
  );
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
