import type { StaticAsset } from '@opi/play/pages/static-assets';
import { type GamePageAssets, loadGamePageAssets } from '../player-pages/game-page-assets.js';

/** `/gs2c/static/<name>-<content hash>.<ext>`: a new file gets a new URL, so it is cached for good. */
export type PageAsset = StaticAsset;

/**
 * The slot page's script and style sheet (`src/slots/static/game.js`, `.css`, served as written),
 * the shared session bar and reality check and the shared history panel, under `/gs2c/static/`.
 */
export type PageAssets = GamePageAssets;

export function loadPageAssets(): PageAssets {
  return loadGamePageAssets('slots/static', '/gs2c/static/', 'game');
}
