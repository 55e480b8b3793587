import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Context } from 'koa';

/*
 * The player pages' static files (issue 36 point 3): every game page (slot, native, crash), the
 * replay page and the shared parts they include (the session bar and reality check, the balance
 * keeper, the money helper, the history panel) serve their scripts and style sheets as written (no
 * build step) under content-hashed paths, `<prefix><name>-<first 12 hex of SHA-256>.<ext>`: a
 * changed file gets a new URL, so each is cached for good (`Cache-Control: immutable`) and stays
 * same-origin under the page's CSP. This is the one loader they all use.
 */

/** A static file as a page family serves it. */
export interface StaticAsset {
  /** `<prefix><name>-<content hash>.<ext>`. */
  path: string;
  /** Its `Content-Type`. */
  type: string;
  body: Buffer;
}

/** The content type of each extension the pages serve. */
export const STATIC_TYPES = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
} as const;
export type StaticExt = keyof typeof STATIC_TYPES;

/**
 * The folder of a workspace's static files under `src/`, from a module of that workspace: read
 * from `src/` both when running the source and when running `dist/` (which has no copy; the
 * package keeps `src/` either way). `moduleUrl` is the caller's `import.meta.url`, two levels under
 * the workspace (`src/<folder>/x.ts` or `dist/<folder>/x.js`); `folder` is e.g. `crash/static`.
 */
export function staticDir(moduleUrl: string, folder: string): URL {
  return new URL(`../../src/${folder}/`, moduleUrl);
}

/** Reads `<name>.<ext>` from `dir` and names it by its content under `prefix`. */
export function loadStaticAsset(dir: URL, prefix: string, name: string, ext: StaticExt): StaticAsset {
  const body = readFileSync(new URL(`${name}.${ext}`, dir));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `${prefix}${name}-${hash}.${ext}`, type: STATIC_TYPES[ext], body };
}

/** A page's own script and style sheet (`<name>.js`, `<name>.css`). */
export function loadScriptAndStyle(
  dir: URL,
  prefix: string,
  name: string,
): { js: StaticAsset; css: StaticAsset } {
  return { js: loadStaticAsset(dir, prefix, name, 'js'), css: loadStaticAsset(dir, prefix, name, 'css') };
}

/** The assets by URL path, as the family's static route looks them up. */
export function assetsByPath<A extends StaticAsset>(assets: readonly A[]): Map<string, A> {
  return new Map(assets.map((a) => [a.path, a]));
}

/**
 * The handler of a family's static route (`<prefix>:file`): the asset at the request's path, cached
 * for good, same-origin only and never sniffed; an unknown path is left unanswered (the error
 * boundary's 404).
 */
export function serveStaticAsset(byPath: ReadonlyMap<string, StaticAsset>): (ctx: Context) => void {
  return (ctx) => {
    const asset = byPath.get(ctx.path);
    if (!asset) return;
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
    ctx.type = asset.type;
    ctx.body = asset.body;
  };
}
