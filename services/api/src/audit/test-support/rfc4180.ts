import assert from 'node:assert/strict';
import { RECONCILIATION_CSV_HEADER } from '@opi/contract';

/**
 * A strict RFC 4180 reader for the tests (not used by the service): records end with CRLF (the
 * last one may omit it), a field is either unquoted (no comma, quote, CR or LF) or quoted, where a
 * doubled quote is one quote and commas, CR and LF are data. Anything else throws, so a writer
 * that forgets to quote is caught instead of read back as extra fields.
 */
export function parseRfc4180(text: string): string[][] {
  const records: string[][] = [];
  const n = text.length;
  let i = 0;
  let record: string[] = [];
  while (i < n) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= n) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += text[i];
        i++;
      }
    } else {
      while (i < n && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
        if (text[i] === '"') throw new Error(`a quote inside an unquoted field at ${i}`);
        field += text[i];
        i++;
      }
    }
    record.push(field);
    if (i >= n) {
      records.push(record);
      break;
    }
    if (text[i] === ',') {
      i++;
      // A trailing comma at the very end is one more, empty, field.
      if (i >= n) {
        record.push('');
        records.push(record);
      }
      continue;
    }
    if (text[i] === '\r' && text[i + 1] === '\n') {
      i += 2;
      records.push(record);
      record = [];
      continue;
    }
    throw new Error(
      `unexpected ${JSON.stringify(text[i])} at ${i} (a bare CR or LF, or text after a closing quote)`,
    );
  }
  return records;
}

/**
 * The reconciliation CSV read back with the strict reader: the header row checked, then one
 * object per currency row with the integer columns parsed (minor units as BigInt) and `balanced`
 * as its text.
 */
export function readReconciliationCsv(text: string) {
  const [header, ...rows] = parseRfc4180(text);
  assert.deepEqual(header, [...RECONCILIATION_CSV_HEADER]);
  return rows.map((f) => ({
    currency: f[0],
    rounds: Number(f[1]),
    transactions: Number(f[2]),
    wallet_delta_minor: BigInt(f[3]!),
    game_delta_minor: BigInt(f[4]!),
    difference_minor: BigInt(f[5]!),
    pending_transactions: Number(f[6]),
    balanced: f[7],
  }));
}
