import { loadScriptAndStyle, type StaticAsset, staticDir } from '@opi/play/pages/static-assets';

/**
 * The player's history panel of every game page (slot, native, crash; issue 26): the markup (a
 * "History" button in the page's bar and a dialog), and one script and style sheet
 * (`src/history/static/history.js`, `.css`) that each page includes beside the reality-check
 * ones. Each page family serves them under its own content-hashed static path (`/gs2c/static/`,
 * `/native/static/`, `/games/assets/`), so they stay same-origin under the pages' CSP and are
 * cached for good. The script reads `GET /api/runtime/history` (history.ts) with the page's own
 * runtime token.
 */
/** `<prefix>history-<content hash>.<ext>`: a changed file gets a new URL (the one loader's asset). */
export type HistoryAsset = StaticAsset;

export interface HistoryAssets {
  js: HistoryAsset;
  css: HistoryAsset;
}

/** Served as written (no build step), from `src/history/static/` whether running src/ or dist/. */
const STATIC_DIR = staticDir(import.meta.url, 'history/static');

/** The panel's script and style sheet at paths under `prefix` (the page family's static folder). */
export function loadHistoryAssets(prefix: string): HistoryAssets {
  return loadScriptAndStyle(STATIC_DIR, prefix, 'history');
}

/** The panel's `<link>` (placed before the page's own style sheet, so the page's styles win). */
export function historyStyleTag(assets: HistoryAssets | undefined): string {
  return assets ? `<link rel="stylesheet" href="${assets.css.path}">\n` : '';
}

/** The panel's deferred `<script>` (placed before the page's own, so `GameHistory` is there first). */
export function historyScriptTag(assets: HistoryAssets | undefined): string {
  return assets ? `<script src="${assets.js.path}" defer></script>\n` : '';
}

/** The button in the page's bar: shown by the script once the page has its session. */
export function historyButton(): string {
  return `<button type="button" class="history-open" data-testid="history-button" aria-haspopup="dialog" aria-controls="history-panel" aria-expanded="false" hidden>History</button>`;
}

/** The dialog the button opens (filled in by the script). */
export function historyPanel(): string {
  return `<section class="history-panel" id="history-panel" data-testid="history-panel" role="dialog" aria-modal="true" aria-labelledby="history-title" hidden>
    <div class="history-sheet">
      <header class="history-head">
        <h2 id="history-title">Your rounds</h2>
        <button type="button" class="history-close" data-testid="history-close">Close</button>
      </header>
      <div class="history-scope" role="group" aria-label="Which games">
        <button type="button" data-testid="history-scope-title" data-scope="title" aria-pressed="true">This game</button>
        <button type="button" data-testid="history-scope-all" data-scope="all" aria-pressed="false">All games</button>
      </div>
      <p class="history-note">Your rounds of the last 90 days with this casino, newest first. Each opens its replay in a new tab.</p>
      <p class="history-status" data-testid="history-status" role="status" aria-live="polite"></p>
      <ol class="history-list" data-testid="history-list"></ol>
      <button type="button" class="history-more" data-testid="history-more" hidden>More</button>
    </div>
  </section>`;
}
