import { HttpError } from '../http/errors.js';

/**
 * Keyset cursors: the last item's creation instant in microseconds and its id, base64url. Opaque
 * to operators; a malformed one is a 422, never a database error.
 */
export interface Cursor {
  micros: bigint;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.micros}|${c.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(raw: string | undefined): Cursor | null {
  if (raw === undefined) return null;
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  const m = /^([0-9]{1,19})\|(.{1,200})$/s.exec(text);
  if (!m || text.includes('\u0000')) {
    throw new HttpError(422, [
      { loc: ['query', 'cursor'], msg: 'not a cursor this API returned', type: 'value_error' },
    ]);
  }
  return { micros: BigInt(m[1]!), id: m[2]! };
}
