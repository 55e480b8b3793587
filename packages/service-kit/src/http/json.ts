import type { Context } from 'koa';

const MARK = '\u0000int64:';
const MARKED = /"\\u0000int64:(-?[0-9]+)"/g;

/**
 * JSON with int64 amounts as JSON integers: BigInt values (pg's int8) are written as their exact
 * digits, never rounded through a double and never quoted. (Database text cannot hold U+0000, so
 * the marker cannot collide with stored data.)
 */
export function stringifyWithInt64(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `${MARK}${v}` : v)).replace(
    MARKED,
    '$1',
  );
}

/** Answers `body` as application/json with int64 amounts exact. */
export function sendJson(ctx: Context, body: unknown): void {
  ctx.type = 'application/json; charset=utf-8';
  ctx.body = stringifyWithInt64(body);
}
