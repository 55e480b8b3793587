import {
  assetsByPath,
  loadScriptAndStyle,
  loadStaticAsset,
  type StaticAsset,
  staticDir,
} from '@opi/play/pages/static-assets';
import { loadRealityCheckAssets, type RealityCheckAssets } from '@opi/play/sessions/reality-check-page';
import { type HistoryAssets, loadHistoryAssets } from '../history/page.js';

/**
 * What every game page family (slot `/gs2c/static/`, native `/native/static/`, crash
 * `/games/assets/`) serves under its static prefix: its own script and style sheet, the game
 * pages' shared base sheet (`player-pages/static/game-base.css`: the rules all three share), the shared
 * session bar and reality check (with the balance keeper and the money helper) and the shared
 * history panel, each content-hashed by the one loader (@opi/play/pages/static-assets), and all of
 * them by URL path for the family's static route.
 */
export interface GamePageAssets {
  js: StaticAsset;
  css: StaticAsset;
  /** The game pages' shared base sheet, included just before `css` (which sets the page's palette). */
  base: StaticAsset;
  /** The shared session bar and reality check (scripts and style sheet), under the family's prefix. */
  realityCheck: RealityCheckAssets;
  /** The shared history panel (script and style sheet), under the family's prefix. */
  history: HistoryAssets;
  /** By URL path. */
  byPath: Map<string, StaticAsset>;
}

const BASE_DIR = staticDir(import.meta.url, 'player-pages/static');

/** `folder`: the family's static files under the game server's `src/` (e.g. `crash/static`). */
export function loadGamePageAssets(folder: string, prefix: string, name: string): GamePageAssets {
  const { js, css } = loadScriptAndStyle(staticDir(import.meta.url, folder), prefix, name);
  const base = loadStaticAsset(BASE_DIR, prefix, 'game-base', 'css');
  const realityCheck = loadRealityCheckAssets(prefix);
  const history = loadHistoryAssets(prefix);
  const all = [
    js,
    css,
    base,
    realityCheck.js,
    realityCheck.css,
    realityCheck.balance,
    realityCheck.money,
    realityCheck.fetch,
    history.js,
    history.css,
  ];
  return { js, css, base, realityCheck, history, byPath: assetsByPath(all) };
}
