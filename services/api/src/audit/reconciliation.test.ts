import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RECONCILIATION_CSV_HEADER, type Reconciliation } from '@opi/contract';
import { csvField, reconciliationCsv } from './reconciliation.js';
import { parseRfc4180, readReconciliationCsv } from './test-support/rfc4180.js';

// The CSV writer on its own: RFC 4180 quoting field by field, and the whole file read back by a
// strict RFC 4180 reader (not split(',')) to the same values, int64 amounts exactly.

describe('csvField (RFC 4180 quoting)', () => {
  test('plain fields stay as they are', () => {
    for (const v of ['EUR', '0', '-9223372036854775808', 'true', '', ' spaced ', "it's"]) {
      assert.equal(csvField(v), v);
    }
  });

  test('a comma, a quote, CR or LF quotes the field; quotes are doubled', () => {
    const cases: [string, string][] = [
      ['a,b', '"a,b"'],
      [',', '","'],
      ['say "hi"', '"say ""hi"""'],
      ['"', '""""'],
      ['""', '""""""'],
      ['line1\r\nline2', '"line1\r\nline2"'],
      ['cr\ronly', '"cr\ronly"'],
      ['lf\nonly', '"lf\nonly"'],
      ['all, "of"\r\nthem\n', '"all, ""of""\r\nthem\n"'],
    ];
    for (const [value, quoted] of cases) assert.equal(csvField(value), quoted, JSON.stringify(value));
  });

  test('quoted fields read back to the original values', () => {
    const rows = [
      ['plain', 'a,b', 'say "hi"', 'line1\r\nline2', ''],
      ['cr\ronly', 'lf\nonly', '"', ',,,', 'end'],
    ];
    const text = `${rows.map((r) => r.map(csvField).join(',')).join('\r\n')}\r\n`;
    assert.deepEqual(parseRfc4180(text), rows);
  });

  test('the reader is strict: unquoted special characters are refused, not split', () => {
    assert.throws(() => parseRfc4180('a"b,c\r\n'), /quote inside an unquoted field/);
    assert.throws(() => parseRfc4180('"a"b,c\r\n'), /unexpected/);
    assert.throws(() => parseRfc4180('a\nb\r\n'), /bare CR or LF/);
    assert.throws(() => parseRfc4180('"open\r\n'), /unterminated/);
    assert.deepEqual(parseRfc4180('a,\r\n,b'), [
      ['a', ''],
      ['', 'b'],
    ]);
  });
});

describe('reconciliationCsv', () => {
  const r: Reconciliation = {
    operator_id: 'op_csv',
    from: null,
    to: '2026-01-01T00:00:00.000Z',
    balanced: false,
    currencies: [
      {
        currency: 'EUR',
        rounds: 3,
        transactions: 7,
        wallet_delta_minor: -1250n,
        game_delta_minor: -1200n,
        difference_minor: -50n,
        pending_transactions: 1,
        balanced: false,
      },
      {
        currency: 'USD',
        rounds: 2,
        transactions: 4,
        // Beyond 2^53: the CSV carries int64 totals exactly.
        wallet_delta_minor: 9007199254740993n,
        game_delta_minor: 9007199254740993n,
        difference_minor: 0n,
        pending_transactions: 0,
        balanced: true,
      },
    ],
    items: [],
    items_truncated: false,
    free_rounds: [],
    rounds_balanced: false,
    jackpots: [],
    promo_payouts: [],
    promo_payouts_balanced: true,
  };

  test('a header row, one row per currency, CRLF line ends; it parses back to the same totals', () => {
    const text = reconciliationCsv(r);
    assert.ok(text.endsWith('\r\n'));
    assert.ok(!/[^\r]\n/.test(text), 'every line ends with CRLF');
    assert.deepEqual(
      readReconciliationCsv(text),
      r.currencies.map((c) => ({ ...c, balanced: String(c.balanced) })),
    );
  });

  test('jackpot and promo columns; a currency with promotional payouts only has a row of its own', () => {
    const text = reconciliationCsv({
      ...r,
      jackpots: [
        {
          currency: 'EUR',
          contributing_rounds: 2,
          contribution_micros: '18446744073709551617',
          hits_paid: 1,
          win_paid_minor: 501n,
          hits_pending: 0,
          win_pending_minor: 0n,
          hits_forfeited: 1,
          win_forfeited_minor: 700n,
        },
      ],
      promo_payouts: [
        {
          currency: 'GBP',
          payouts: 2,
          ledger_minor: 3000n,
          wallet_credit_minor: 1000n,
          difference_minor: -2000n,
          pending_payouts: 1,
          pending_minor: 2000n,
          pending_transactions: 0,
          balanced: false,
        },
      ],
      promo_payouts_balanced: false,
    });
    const [header, ...rows] = parseRfc4180(text);
    assert.deepEqual(header, [...RECONCILIATION_CSV_HEADER]);
    const named = rows.map((row) => Object.fromEntries(header!.map((h, i) => [h, row[i]])));
    assert.deepEqual(
      named.map((x) => x.currency),
      ['EUR', 'GBP', 'USD'],
    );
    assert.deepEqual(
      [
        named[0]!.jackpot_contribution_micros,
        named[0]!.jackpot_win_paid_minor,
        named[0]!.jackpot_win_forfeited_minor,
      ],
      ['18446744073709551617', '501', '700'],
    );
    assert.deepEqual(
      [
        named[1]!.rounds,
        named[1]!.balanced,
        named[1]!.promo_ledger_minor,
        named[1]!.promo_wallet_credit_minor,
      ],
      ['0', 'true', '3000', '1000'],
    );
    assert.deepEqual(
      [named[1]!.promo_difference_minor, named[1]!.promo_pending_payouts, named[1]!.promo_balanced],
      ['-2000', '1', 'false'],
    );
    assert.equal(named[2]!.promo_balanced, 'true');
  });

  test('no currencies: the header alone', () => {
    assert.deepEqual(parseRfc4180(reconciliationCsv({ ...r, currencies: [] })), [
      [...RECONCILIATION_CSV_HEADER],
    ]);
  });
});
