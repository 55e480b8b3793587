import { INSTANT_MAX_MICROS } from '@opi/contract';
import { invalidField } from '@opi/service-kit/http/named-errors';

/**
 * Keyset cursors: the last item's creation instant in microseconds and its id, base64url. Opaque
 * to operators; anything this API could not have written (garbage, another encoding, an instant
 * outside 1970..9999 or past int8, a NUL) is a 422, never a database error.
 */
export interface Cursor {
  micros: bigint;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.micros}|${c.id}`, 'utf8').toString('base64url');
}

const notACursor = () => invalidField(['query', 'cursor'], 'not a cursor this API returned');

export function decodeCursor(raw: string | undefined): Cursor | null {
  if (raw === undefined) return null;
  if (!/^[A-Za-z0-9_-]*$/.test(raw)) throw notACursor();
  const text = Buffer.from(raw, 'base64url').toString('utf8');
  const m = /^(0|[1-9][0-9]{0,17})\|(.{1,200})$/s.exec(text);
  if (!m || text.includes('\u0000')) throw notACursor();
  const micros = BigInt(m[1]!);
  if (micros > INSTANT_MAX_MICROS) throw notACursor();
  return { micros, id: m[2]! };
}
