import { deflateSync } from 'node:zlib';
import Router from '@koa/router';
import { etagFor, symbolSvg } from '@opi/games';
import { notFoundDetail } from '@opi/service-kit/http/named-errors';
import type { Context } from 'koa';

/**
 * An SVG opened on its own is a document: no script, no outside fetch, no plugin, no form, not
 * framed; its inline `style`-free markup needs nothing else. Sent with every symbol.
 */
export const ART_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox";

/** A day fresh, then a week of serving the cached copy while it revalidates with the ETag. */
const ART_CACHE = 'public, max-age=86400, stale-while-revalidate=604800';

function send(ctx: Context, type: string, body: string | Buffer): void {
  const etag = etagFor(body);
  ctx.set('Cache-Control', ART_CACHE);
  ctx.set('ETag', etag);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
  ctx.set('Content-Security-Policy', ART_CSP);
  ctx.type = type;
  const match = ctx.get('If-None-Match');
  if (match?.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
    ctx.status = 304;
    return;
  }
  ctx.body = body;
}

// ── /favicon.ico: a 32 x 32 icon (a gold diamond on a dark tile) as an ICO holding one PNG ──────

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

function faviconPng(size: number): Buffer {
  const rows: Buffer[] = [];
  const c = (size - 1) / 2;
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4); // filter byte 0, then RGBA
    for (let x = 0; x < size; x++) {
      const dx = Math.abs(x - c);
      const dy = Math.abs(y - c);
      // a rounded square tile
      const corner = Math.max(0, dx - (c - 6)) ** 2 + Math.max(0, dy - (c - 6)) ** 2;
      const inTile = corner <= 36;
      const inDiamond = dx / 11 + dy / 13 <= 1;
      const rgba = !inTile
        ? [0, 0, 0, 0]
        : inDiamond
          ? x < c
            ? [0xff, 0xd2, 0x4a, 0xff]
            : [0xe0, 0x9a, 0x1c, 0xff]
          : [0x1b, 0x12, 0x38, 0xff];
      row.set(rgba, 1 + x * 4);
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An ICO file with one 32 x 32 PNG image (every browser reads PNG-in-ICO). */
export function faviconIco(): Buffer {
  const png = faviconPng(32);
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(0, 0); // reserved
  header.writeUInt16LE(1, 2); // icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(32, 6); // width
  header.writeUInt8(32, 7); // height
  header.writeUInt8(0, 8); // no palette
  header.writeUInt8(0, 9);
  header.writeUInt16LE(1, 10); // planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(png.length, 14);
  header.writeUInt32LE(22, 18); // offset of the image
  return Buffer.concat([header, png]);
}

/**
 * `GET /gs2c/art/:game/:file`: a slot title's drawn symbol (`<NAME>.svg`, see
 * `@opi/games` symbolSvg) as `image/svg+xml` with an ETag and a restrictive CSP; an unknown
 * title or symbol is a JSON 404. `GET /favicon.ico`: the game origin's icon, so a browser's
 * first visit logs no 404.
 */
export function artRoutes(): Router {
  const favicon = faviconIco();
  const router = new Router();
  router.get('/gs2c/art/:game/:file', (ctx) => {
    const m = /^([A-Z0-9]{1,16})\.svg$/.exec(ctx.params.file ?? '');
    const svg = m ? symbolSvg(ctx.params.game ?? '', m[1]!) : undefined;
    if (svg === undefined) throw notFoundDetail('No such symbol art');
    send(ctx, 'image/svg+xml; charset=utf-8', svg);
  });
  router.get('/favicon.ico', (ctx) => {
    send(ctx, 'image/x-icon', favicon);
  });
  return router;
}
