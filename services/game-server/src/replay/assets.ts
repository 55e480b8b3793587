import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A static file at `/replay/static/<name>-<content hash>.<ext>`: a new file gets a new URL. */
export interface PageAsset {
  path: string;
  type: string;
  body: Buffer;
}

/** The replay page's script and style sheet, served as written under content-hashed paths. */
export interface ReplayAssets {
  js: PageAsset;
  css: PageAsset;
  /** By URL path (`/replay/static/<name>-<hash>.<ext>`). */
  byPath: Map<string, PageAsset>;
}

// Read from src/ both when running the source and dist/ (as src/pages/assets.ts does).
const STATIC_DIR = new URL('../../src/replay/static/', import.meta.url);

function load(name: string, ext: string, type: string): PageAsset {
  const body = readFileSync(new URL(`${name}.${ext}`, STATIC_DIR));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `/replay/static/${name}-${hash}.${ext}`, type, body };
}

export function loadReplayAssets(): ReplayAssets {
  const js = load('replay', 'js', 'text/javascript; charset=utf-8');
  const css = load('replay', 'css', 'text/css; charset=utf-8');
  return { js, css, byPath: new Map([js, css].map((a) => [a.path, a])) };
}
