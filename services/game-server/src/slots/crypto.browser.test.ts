import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { formatMinor } from '@opi/money';
import { ADMIN_KEY, call } from '@opi/testkit/harness';
import { DESKTOP, PHONE, type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import type { Page } from 'playwright-core';

// Issue 39 end to end (chromium): a slot launched in BTC with mBTC display on desktop and in a
// stablecoin (UDT, shown as USDT) on a 390x844 touch phone, through the API with the sandbox
// wallet and a Temporal worker. The page shows every amount in the session's unit, exactly (the
// balance, the stakes offered, the last win, the net position); the stakes are the session's
// ladder by rate; paid spins settle with wallet callbacks in integer minor units of the currency;
// each round records its ladder and rate; reconciliation balances in the currency.
const OP = 'op_crypto_pages';
const SLOT = 'vs20emberfox';
let w: PlayWorld;
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

before(async () => {
  w = await startPlayWorld({
    queue: 'crypto-pages',
    browser: true,
    operators: [
      {
        id: OP,
        settings: {
          default_currency: 'BTC',
          allowed_currencies: ['BTC', 'UDT'],
          bet_limits: { min: '100', max: '5000000' },
        },
        titles: [SLOT],
      },
    ],
  });
  const rates = await call(w.h.base, 'POST', '/api/admin/v1/exchange-rates', {
    key: ADMIN_KEY,
    sign: true,
    body: {
      rates: [
        { base_currency: 'BTC', quote_currency: 'EUR', rate_date: day(-1), rate: '98765.12', source: 'test' },
        { base_currency: 'EUR', quote_currency: 'UDT', rate_date: day(-1), rate: '1.0823', source: 'test' },
      ],
    },
  });
  assert.equal(rates.status, 201, rates.text);
  // The operator's jackpot on the slot, with a pool in each crypto currency (1 %, never hits).
  const jp = await call(w.h.base, 'PUT', '/api/admin/v1/jackpots/jp-crypto', {
    key: ADMIN_KEY,
    sign: true,
    body: {
      name: 'Crypto jackpot',
      scope: 'operator',
      operator_id: OP,
      titles: [SLOT],
      levels: [
        {
          level: 'pool',
          contribution_rate_ppm: 10_000,
          currencies: {
            BTC: { seed_minor: 100_000, hit_every_minor: '1000000000000000' },
            UDT: { seed_minor: 100_000_000, hit_every_minor: '1000000000000000' },
          },
        },
      ],
    },
  });
  assert.equal(jp.status, 201, jp.text);
});
after(() => w?.close());

const hook = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`);
const norm = (s: string | null) => (s ?? '').replace(/\s/g, ' ').trim();
/** The page's text for an amount: the unit's label and the exact decimal, thousands grouped. */
const shown = (minor: string | bigint, currency: string, unit?: string) => {
  const [label, decimal] = formatMinor(minor, currency, unit).split(' ') as [string, string];
  const [whole, fraction] = decimal.split('.') as [string, string | undefined];
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${label} ${grouped}${fraction !== undefined ? `.${fraction}` : ''}`;
};

async function playOnPage(opts: {
  device: typeof DESKTOP | typeof PHONE;
  currency: string;
  unit?: string;
  balanceMinor: number;
  stakeMinor: string;
  expectLadder: string[];
  /** Free rounds of a campaign at this stake, played first. */
  freeRounds?: number;
  /** Whether the title feeds the test jackpot in this currency. */
  jackpot?: boolean;
}) {
  const player = await w.newPlayer(OP, { currency: opts.currency, balanceMinor: opts.balanceMinor });
  if (opts.freeRounds) {
    const created = await call(w.h.base, 'POST', '/api/provider/v1/free-rounds', {
      key: w.key,
      sign: true,
      body: {
        campaign_id: `fr-${player}`,
        symbols: [SLOT],
        currency: opts.currency,
        bet_minor: Number(opts.stakeMinor),
        rounds: opts.freeRounds,
        valid_from: new Date(Date.now() - 60_000).toISOString(),
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        players: [player],
      },
    });
    assert.equal(created.status, 201, created.text);
  }
  const l = await w.launch(w.key, {
    symbol: SLOT,
    external_player_id: player,
    currency: opts.currency,
    ...(opts.unit ? { display_unit: opts.unit } : {}),
    device: opts.device === PHONE ? 'mobile' : 'desktop',
  });
  assert.deepEqual(l.json.stake_ladder.stakes_minor.slice(0, opts.expectLadder.length), opts.expectLadder);
  const unit = opts.unit;
  const context = await w.lobbyContext(opts.device);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  try {
    await page.goto(l.url.toString());
    // The balance the wallet holds, in the unit.
    await until(
      'the balance',
      async () =>
        (await hook(page, 'game-balance').getAttribute('data-balance-minor')) === String(opts.balanceMinor),
    );
    assert.equal(
      norm(await hook(page, 'game-balance').textContent()),
      shown(String(opts.balanceMinor), opts.currency, unit),
    );
    // Free rounds first: the campaign's stake, shown in the unit, selected and disabled.
    for (let i = 0; i < (opts.freeRounds ?? 0); i++) {
      await until(
        'the free round stake',
        async () => (await hook(page, 'stake-select').getAttribute('data-free-round')) === 'true',
      );
      assert.equal(
        norm(await hook(page, 'stake-select').locator('option').first().textContent()),
        shown(opts.stakeMinor, opts.currency, unit),
      );
      const answer = page.waitForResponse((r) => r.url().endsWith('/api/runtime/spin'));
      if (opts.device === PHONE) await hook(page, 'spin-button').tap();
      else await hook(page, 'spin-button').click();
      const res = await answer;
      assert.equal(res.status(), 200, await res.text());
      await until('spin button enabled', async () => !(await hook(page, 'spin-button').isDisabled()));
    }
    await until(
      'the paid stakes',
      async () => (await hook(page, 'stake-select').getAttribute('data-free-round')) !== 'true',
    );
    // The stakes offered: the ladder within the operator's limits, each shown in the unit.
    const options = await hook(page, 'stake-select')
      .locator('option')
      .evaluateAll((els) =>
        els.map((e) => [
          (e as unknown as { value: string }).value,
          (e.textContent ?? '').replace(/\s/g, ' ').trim(),
        ]),
      );
    const ladder = (l.json.stake_ladder.stakes_minor as string[]).filter(
      (s) => BigInt(s) >= 100n && BigInt(s) <= 5_000_000n,
    );
    assert.deepEqual(
      options.map(([v]) => v),
      ladder,
    );
    for (const [v, text] of options) assert.equal(text, shown(v!, opts.currency, unit));

    // Two paid spins at a ladder stake.
    await hook(page, 'stake-select').selectOption(opts.stakeMinor);
    for (let i = 0; i < 2; i++) {
      const answer = page.waitForResponse((r) => r.url().endsWith('/api/runtime/spin'));
      if (opts.device === PHONE) await hook(page, 'spin-button').tap();
      else await hook(page, 'spin-button').click();
      const res = await answer;
      assert.equal(res.status(), 200, await res.text());
      const body = (await res.json()) as { status: string; win_minor: string };
      assert.equal(body.status, 'completed');
      await until('spin button enabled', async () => !(await hook(page, 'spin-button').isDisabled()));
      await until(
        'the win shown',
        async () => (await hook(page, 'last-win').getAttribute('data-win-minor')) === body.win_minor,
      );
      assert.equal(
        norm(await hook(page, 'last-win').textContent()),
        shown(body.win_minor, opts.currency, unit),
      );
    }
    // The page ends on the wallet's balance, in the unit.
    const held = (await w.admin.balance(OP, player, opts.currency)).balance_minor;
    await until(
      'the balance after the spins',
      async () => (await hook(page, 'game-balance').getAttribute('data-balance-minor')) === held,
    );
    assert.equal(norm(await hook(page, 'game-balance').textContent()), shown(held, opts.currency, unit));
    await until(
      'the net position',
      async () =>
        (await hook(page, 'session-net').getAttribute('data-net-minor')) ===
        String(BigInt(held) - BigInt(opts.balanceMinor)),
    );
    const net = await hook(page, 'session-net').getAttribute('data-net-minor');
    assert.equal(norm(await hook(page, 'session-net').textContent()), shown(net!, opts.currency, unit));
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }

  // Every round: the session's ladder and its rate; the callbacks: integer minor units, the currency.
  const { rows } = await w.h.db.pool.query(
    `SELECT r.round_id, r.bet_minor::text AS bet, r.free_round_bet_minor::text AS free_bet, r.status,
            r.jackpot_contribution_micros::text AS micros, l.version, trim_scale(l.rate)::text AS rate
       FROM rounds r JOIN stake_ladders l ON l.ladder_id = r.stake_ladder_id
      WHERE r.session_id = $1 ORDER BY r.created_at`,
    [l.sessionId],
  );
  assert.equal(rows.length, 2 + (opts.freeRounds ?? 0));
  for (const [i, r] of rows.entries()) {
    const free = i < (opts.freeRounds ?? 0);
    assert.equal(r.bet, free ? '0' : opts.stakeMinor);
    if (free) assert.equal(r.free_bet, opts.stakeMinor);
    assert.equal(r.status, 'completed');
    assert.equal(r.version, l.json.stake_ladder.version);
    assert.equal(r.rate, l.json.stake_ladder.rate.value);
    // A paid spin feeds the jackpot: stake × 1 % in millionths of a minor unit.
    if (!free && opts.jackpot) assert.equal(r.micros, String(BigInt(opts.stakeMinor) * 10_000n));
  }
  const tx = await w.h.db.pool.query(
    `SELECT transaction_type, amount_minor::text AS amount_minor, trim(currency) AS currency, request_body
       FROM wallet_transactions WHERE session_id = $1 AND transaction_type = 'debit'`,
    [l.sessionId],
  );
  assert.equal(tx.rows.length, 2);
  for (const t of tx.rows) {
    assert.equal(t.amount_minor, opts.stakeMinor);
    assert.equal(t.currency, opts.currency);
    const sent = typeof t.request_body === 'string' ? JSON.parse(t.request_body) : t.request_body;
    assert.ok(sent, 'the debit callback as sent');
    assert.equal(String(sent.amount_minor), opts.stakeMinor);
    assert.equal(sent.currency, opts.currency);
    // The jackpot contribution rides on the debit: stake × 1 % in millionths of the minor unit.
    if (opts.jackpot)
      assert.equal(String(sent.jackpot_contribution_micros), String(BigInt(opts.stakeMinor) * 10_000n));
  }
  // Every round's credit (the free round's and the paid spins'): its win, in minor units of the
  // currency, as journalled, as sent and as the sandbox wallet applied it.
  const credits = await w.h.db.pool.query(
    `SELECT t.round_id, t.amount_minor::text AS amount_minor, trim(t.currency) AS currency, t.request_body,
            r.win_minor::text AS win, r.free_round_campaign_id AS campaign
       FROM wallet_transactions t JOIN rounds r USING (round_id)
      WHERE t.session_id = $1 AND t.transaction_type = 'credit' AND t.status = 'success'`,
    [l.sessionId],
  );
  assert.equal(credits.rows.length, rows.length);
  for (const c of credits.rows) {
    const sent = JSON.parse(c.request_body);
    assert.deepEqual(
      [c.amount_minor, String(sent.amount_minor), c.currency, sent.currency],
      [c.win, c.win, opts.currency, opts.currency],
    );
    assert.equal(sent.action_type, c.campaign ? 'free_round' : 'spin');
    const { rows: held } = await w.h.db.pool.query(
      `SELECT amount_minor::text AS amount_minor, trim(currency) AS currency FROM wallet.transactions
        WHERE operator_id = $1 AND round_id = $2 AND transaction_type = 'credit'`,
      [OP, c.round_id],
    );
    assert.deepEqual(held, [{ amount_minor: c.win, currency: opts.currency }]);
  }
  // The history panel's rows and the replay page show the stake in the session's unit.
  const history = await w.runtime(l.token!, 'GET', '/api/runtime/history');
  assert.equal(history.status, 200, history.text);
  const paid = history.json.rounds.find((r: { free_round: boolean }) => !r.free_round);
  assert.equal(paid.stake_minor, opts.stakeMinor);
  assert.equal(paid.shown.stake, formatMinor(opts.stakeMinor, opts.currency, unit));
  const replayUrl = new URL(paid.replay_url);
  const replay = await call(w.h.game, 'GET', `${replayUrl.pathname}${replayUrl.search}`);
  assert.equal(replay.status, 200, replay.text.slice(0, 300));
  assert.match(
    replay.text,
    new RegExp(
      `data-testid="replay-stake"[^>]*>${formatMinor(opts.stakeMinor, opts.currency, unit).replace('.', '\\.')}<`,
    ),
  );
  // The operator's round read names the ladder, its version and rate (minor units stay minor).
  const audited = await call(w.h.base, 'GET', `/api/operator/v1/rounds/${rows[rows.length - 1].round_id}`, {
    key: w.key,
    sign: true,
  });
  assert.equal(audited.status, 200, audited.text);
  assert.equal(String(audited.json.data.bet_minor), opts.stakeMinor);
  assert.deepEqual(audited.json.data.stake_ladder, {
    ladder_id: l.json.stake_ladder.ladder_id,
    version: l.json.stake_ladder.version,
    rate: l.json.stake_ladder.rate,
  });
  // Reconciliation in the currency: balanced, integer minor units.
  const rec = await call(w.h.base, 'GET', `/api/operator/v1/reconciliation?currency=${opts.currency}`, {
    key: w.key,
    sign: true,
  });
  assert.equal(rec.status, 200, rec.text);
  const cur = rec.json.data.currencies.find((c: { currency: string }) => c.currency === opts.currency);
  assert.equal(cur.balanced, true, rec.text);
  assert.match(String(cur.wallet_delta_minor), /^-?[0-9]+$/);
  // The CSV export: the same integers of the currency's minor unit (and its jackpot micros).
  const csv = await call(w.h.base, 'GET', `/api/operator/v1/reconciliation.csv?currency=${opts.currency}`, {
    key: w.key,
    sign: true,
  });
  assert.equal(csv.status, 200, csv.text);
  const [header, ...lines] = csv.text.trim().split('\r\n');
  const row = lines.map((x) => x.split(',')).find((x) => x[0] === opts.currency)!;
  const col = (name: string) => row[header!.split(',').indexOf(name)];
  assert.deepEqual(
    [col('wallet_delta_minor'), col('game_delta_minor'), col('balanced')],
    [String(cur.wallet_delta_minor), String(cur.game_delta_minor), 'true'],
  );
  return { player, sessionId: l.sessionId };
}

describe('crypto currencies on the pages (issue 39)', () => {
  test('BTC in mBTC on desktop: ladder stakes, balance, wins and net position in mBTC; rounds on the ladder; reconciliation', async () => {
    await playOnPage({
      device: DESKTOP,
      currency: 'BTC',
      unit: 'mBTC',
      balanceMinor: 10_000_000,
      stakeMinor: '1000',
      expectLadder: ['100', '200', '500', '1000'],
      freeRounds: 1,
      jackpot: true,
    });
    // The jackpot's BTC pool holds the seed plus both paid spins' contributions, in micros.
    const { rows } = await w.h.db.pool.query(
      `SELECT trim(currency) AS currency, amount_micros::text AS amount FROM jackpot_pools WHERE jackpot_id = 'jp-crypto' ORDER BY currency`,
    );
    // 100,000 sat seeded, then 1 % of two 1,000-sat stakes: 2 × 10 sat (the free round feeds nothing).
    assert.equal(
      rows.find((r) => r.currency === 'BTC')?.amount,
      String(100_000n * 1_000_000n + 2n * 10_000_000n),
    );
  });

  test('a stablecoin (USDT) on a phone', async () => {
    await playOnPage({
      device: PHONE,
      currency: 'UDT',
      balanceMinor: 1_000_000_000,
      stakeMinor: '1000000',
      expectLadder: ['100000', '200000', '500000', '1000000'],
      freeRounds: 1,
      jackpot: true,
    });
  });
});
