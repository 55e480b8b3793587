import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { reportDrift } from '@opi/api';
import { convertMinor } from '@opi/db';
import { CATALOG } from '@opi/games';
import { ADMIN_KEY, call, type Harness } from '@opi/testkit/harness';
import { type PlayWorld, startPlayWorld } from '@opi/testkit/play-world';
import { until } from '@opi/testkit/until';
import { startPayPromo } from '@opi/workflows';
import { createOperatorClient, findLedgerDifferences, type LedgerRow, roundSetHash } from './index.js';

/*
 * Issue 38 end to end, on real play: rounds of every family settled by the settlement workflow
 * against the sandbox wallet over HTTP (spins of two slot families, prov_a and prov_b; a native
 * Spark Dice round, prov_c, through the native runtime; a crash round of Comet Climb, prov_d,
 * through the crash runtime), a jackpot that hits, free rounds, a tournament prize paid by the
 * payPromo workflow. Then: the daily report equals the recount from the journal and has a row per
 * title with each round's stake and win as the wallet applied them; GGR and GGY follow their
 * definitions from the wallet's own record; a month-to-date invoice in GBP converts each family's
 * line at the loaded rate; and the diff, run by the SDK from the wallet's own ledger less one
 * credit, finds exactly that credit.
 */
const slotA = CATALOG.find((e) => e.provider_id === 'prov_a' && e.release.status === 'accepted')!;
const slotB = CATALOG.find((e) => e.provider_id === 'prov_b' && e.release.status === 'accepted')!;
const NATIVE = 'cndice';
const CRASH = 'dcrash2';
const OP = 'op_rep_e2e';
let w: PlayWorld;
let h: Harness;
let key = '';
const today = new Date().toISOString().slice(0, 10);

async function settled() {
  await until('every round and payout of the operator settled', async () => {
    const { rows } = await h.db.pool.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM rounds WHERE operator_id = $1 AND status IN ('open', 'settling'))
            + (SELECT count(*) FROM wallet_transactions WHERE operator_id = $1 AND status = 'pending')
            + (SELECT count(*) FROM jackpot_hits WHERE operator_id = $1 AND status = 'pending') AS n`,
      [OP],
    );
    return Number(rows[0]!.n) === 0;
  });
}

before(async () => {
  w = await startPlayWorld({
    queue: 'reports-e2e',
    // The native title plays with the operator's wallet (its per-title flag on).
    operatorWalletTitles: [NATIVE],
    operators: [{ id: OP, titles: [slotA.symbol, slotB.symbol, NATIVE, CRASH] }],
    client: true,
  });
  h = w.h;
  key = w.operators[OP]!.key;
  const on = await call(h.base, 'PUT', '/api/admin/v1/providers/prov_b/switch', {
    key: ADMIN_KEY,
    sign: true,
    body: { enabled: true },
  });
  assert.equal(on.status, 200, on.text);
  const jackpot = await call(h.base, 'PUT', '/api/admin/v1/jackpots/rep-e2e', {
    key: ADMIN_KEY,
    sign: true,
    body: {
      name: 'Reports jackpot',
      scope: 'operator',
      operator_id: OP,
      titles: [slotA.symbol],
      levels: [
        {
          level: 'mini',
          contribution_rate_ppm: 10_000,
          currencies: { EUR: { seed_minor: 500, hit_every_minor: 1 } },
        },
      ],
    },
  });
  assert.equal(jackpot.status, 201, jackpot.text);

  // Paid spins: prov_a (feeding the jackpot once its definition reaches the game server) and prov_b.
  const pa = await w.newPlayer(OP, { prefix: 'rep', balanceMinor: 100_000 });
  const a = await w.launch(key, { symbol: slotA.symbol, external_player_id: pa, currency: 'EUR' });
  const fed = async (roundId: string) =>
    (await h.db.pool.query(`SELECT jackpot_id FROM rounds WHERE round_id = $1`, [roundId])).rows[0]
      ?.jackpot_id;
  let spin = await w.spin(a.token!, { bet_minor: 100 });
  for (let i = 0; i < 30 && (await fed(spin.json.round_id)) == null; i++) {
    await new Promise((r) => setTimeout(r, 100));
    spin = await w.spin(a.token!, { bet_minor: 100 });
  }
  assert.equal(spin.status, 200, spin.text);
  const pb = await w.newPlayer(OP, { prefix: 'rep', balanceMinor: 100_000 });
  const b = await w.launch(key, { symbol: slotB.symbol, external_player_id: pb, currency: 'EUR' });
  for (let i = 0; i < 3; i++) {
    const res = await w.spin(b.token!, { bet_minor: 100 });
    assert.equal(res.status, 200, res.text);
  }
  // A native round (prov_c): Spark Dice through the native runtime, settled with its bet.
  const pn = await w.newPlayer(OP, { prefix: 'rep', balanceMinor: 100_000 });
  const n = await w.launch(key, { symbol: NATIVE, external_player_id: pn, currency: 'EUR' });
  const ex = await call(h.game, 'POST', '/api/runtime/native/session-from-grant', {
    body: { grant: n.grant },
  });
  assert.equal(ex.status, 200, ex.text);
  const dice = await w.runtime(ex.json.token, 'POST', '/api/runtime/native/bet', {
    stake_minor: 100,
    target: 5000,
  });
  assert.equal(dice.status, 200, dice.text);
  assert.equal(dice.json.round.status, 'completed', dice.text);
  // A crash round (prov_d): Comet Climb in EUR, cashed out automatically at 1.01 unless it crashes first.
  const pc = await w.newPlayer(OP, { prefix: 'rep', balanceMinor: 100_000 });
  const c = await w.launch(key, { symbol: CRASH, external_player_id: pc, currency: 'EUR' });
  const authorized = await call(h.game, 'POST', '/api/runtime/crash/authorize', {
    headers: { 'x-login-grant': c.login! },
  });
  assert.equal(authorized.status, 200, authorized.text);
  const crashToken = authorized.json.session_token as string;
  const state = await w.runtime(crashToken, 'GET', '/api/runtime/crash/state');
  assert.equal(state.status, 200, state.text);
  const crashBet = await w.runtime(crashToken, 'POST', '/api/runtime/crash/bet', {
    stake_minor: 100,
    client_seed: 'reports-e2e',
    commitment: state.json.next.commitment,
    auto_cashout: '1.01',
  });
  assert.equal(crashBet.status, 200, crashBet.text);
  await until('the crash round is over', async () => {
    const { rows } = await h.db.pool.query(`SELECT status FROM rounds WHERE session_id = $1`, [c.sessionId]);
    return rows[0]?.status === 'completed';
  });
  // Free rounds: two, played before any paid spin of the player.
  const pf = await w.newPlayer(OP, { prefix: 'rep', balanceMinor: 100_000 });
  const hour = 3_600_000;
  const campaign = await call(h.base, 'POST', '/api/provider/v1/free-rounds', {
    key,
    body: {
      campaign_id: `rep-${randomUUID().slice(0, 8)}`,
      symbols: [slotA.symbol],
      currency: 'EUR',
      bet_minor: 100,
      rounds: 2,
      players: [pf],
      valid_from: new Date(Date.now() - hour).toISOString(),
      expires_at: new Date(Date.now() + 24 * hour).toISOString(),
    },
  });
  assert.equal(campaign.status, 201, campaign.text);
  const f = await w.launch(key, { symbol: slotA.symbol, external_player_id: pf, currency: 'EUR' });
  for (let i = 0; i < 2; i++) {
    await settled();
    const res = await w.spin(f.token!, { bet_minor: 100, free_round: true });
    assert.equal(res.status, 200, res.text);
  }
  // A tournament prize, written as the freeze writes it and paid by the payPromo workflow.
  const promoId = `t-${randomUUID().slice(0, 8)}`;
  const payoutId = `pp_t_${promoId}_${randomUUID().replaceAll('-', '')}`;
  await h.db.pool.query(
    `INSERT INTO promo_payouts (payout_id, promo_type, promo_id, operator_id, external_player_id, player_id, currency,
                                amount_minor, rank, session_id, game_symbol)
     SELECT $1, 'tournament', $2, $3, $4, s.player_id, 'EUR', 700, 1, s.session_id, s.symbol
       FROM sessions s WHERE s.session_id = $5`,
    [payoutId, promoId, OP, pa, a.sessionId],
  );
  const { handle } = await startPayPromo(w.client!, w.taskQueue, payoutId, {
    initialRetryMs: 100,
    maxRetryMs: 400,
  });
  assert.equal((await handle.result()).status, 'paid');
  await settled();
});
after(() => w?.close());

/** What the sandbox wallet itself applied for the operator (its own record, not our journal). */
async function walletLedger(): Promise<(LedgerRow & { round_id: string })[]> {
  const { rows } = await h.db.pool.query(
    `SELECT t.transaction_id, t.transaction_type, t.amount_minor, trim(t.currency) AS currency, t.round_id,
            coalesce(r.symbol, p.game_symbol) AS game_symbol, j.created_at AS booked_at
       FROM wallet.transactions t
       LEFT JOIN rounds r ON r.round_id = t.round_id
       LEFT JOIN promo_payouts p ON p.payout_id = t.round_id
       JOIN wallet_transactions j ON j.transaction_id = t.transaction_id
      WHERE t.operator_id = $1 AND t.status = 'success'`,
    [OP],
  );
  return rows;
}

describe('reports on real play', () => {
  test('the daily figures equal the recount from the journal, and GGR and GGY follow from the wallet', async () => {
    assert.deepEqual(await reportDrift(h.db.pool, OP), []);
    const res = await call(
      h.base,
      'GET',
      `/api/operator/v1/reports/revenue?from=${today}&to=${today}&group_by=currency`,
      {
        key,
        sign: true,
      },
    );
    assert.equal(res.status, 200, res.text);
    const [eur] = res.json.data.rows as Record<string, any>[];
    assert.ok(eur && eur.currency === 'EUR' && res.json.data.rows.length === 1);
    // From the wallet's own record: debits, credits by kind.
    const ledger = await walletLedger();
    const { rows: kinds } = await h.db.pool.query<{ transaction_id: string; free: boolean }>(
      `SELECT t.transaction_id, r.free_round_campaign_id IS NOT NULL AS free
         FROM wallet_transactions t JOIN rounds r ON r.round_id = t.round_id WHERE t.operator_id = $1`,
      [OP],
    );
    const free = new Set(kinds.filter((k) => k.free).map((k) => k.transaction_id));
    let stakes = 0n;
    let wins = 0n;
    let freeWins = 0n;
    let jackpot = 0n;
    let promo = 0n;
    for (const t of ledger) {
      const amount = BigInt(t.amount_minor);
      if (t.transaction_type === 'debit') stakes += amount;
      else if (t.transaction_type !== 'credit') continue;
      else if (t.transaction_id.startsWith('pp_')) promo += amount;
      else if (t.transaction_id.includes(':jackpot:')) jackpot += amount;
      else if (free.has(t.transaction_id)) freeWins += amount;
      else wins += amount;
    }
    assert.equal(BigInt(eur.stakes_minor), stakes);
    assert.equal(BigInt(eur.net_stakes_minor), stakes);
    assert.equal(BigInt(eur.wins_minor), wins);
    assert.equal(BigInt(eur.free_round_wins_minor), freeWins);
    assert.equal(BigInt(eur.jackpot_wins_minor), jackpot);
    assert.ok(jackpot >= 500n, 'the jackpot hit and was paid');
    assert.equal(BigInt(eur.tournament_payouts_minor), 700n);
    assert.equal(promo, 700n);
    assert.equal(BigInt(eur.ggr_minor), stakes - wins - jackpot);
    assert.equal(BigInt(eur.ggy_minor), stakes - wins - freeWins - jackpot - promo);
    assert.equal(BigInt(eur.ggy_non_gb_minor), BigInt(eur.ggy_minor));
    // Every round completed (no faults): each counts, paid or free.
    const { rows: done } = await h.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM rounds WHERE operator_id = $1 AND status = 'completed'`,
      [OP],
    );
    assert.equal(eur.rounds, done[0]!.n);
    assert.equal(eur.players, 5);
    assert.ok(BigInt(eur.jackpot_contribution_micros) > 0n);
  });

  test('every family has its rows in the daily report: each title’s stakes and wins as the wallet applied them', async () => {
    const res = await call(
      h.base,
      'GET',
      `/api/operator/v1/reports/revenue?from=${today}&to=${today}&group_by=day_title_currency`,
      { key, sign: true },
    );
    assert.equal(res.status, 200, res.text);
    const rows = res.json.data.rows as Record<string, any>[];
    const ledger = await walletLedger();
    for (const symbol of [slotA.symbol, slotB.symbol, NATIVE, CRASH]) {
      const row = rows.find((r) => r.game_symbol === symbol && r.currency === 'EUR');
      assert.ok(row, `a row for ${symbol}`);
      assert.equal(row.day, today);
      const { rows: rounds } = await h.db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM rounds WHERE operator_id = $1 AND symbol = $2 AND status = 'completed'`,
        [OP, symbol],
      );
      assert.equal(row.rounds, rounds[0]!.n, symbol);
      const own = ledger.filter((t) => t.game_symbol === symbol && !t.transaction_id.startsWith('pp_'));
      const sum = (type: string, jackpot: boolean) =>
        own
          .filter((t) => t.transaction_type === type && t.transaction_id.includes(':jackpot:') === jackpot)
          .reduce((s, t) => s + BigInt(t.amount_minor), 0n);
      assert.equal(BigInt(row.stakes_minor), sum('debit', false), `${symbol} stakes`);
      assert.equal(
        BigInt(row.wins_minor) + BigInt(row.free_round_wins_minor),
        sum('credit', false),
        `${symbol} wins`,
      );
      assert.equal(BigInt(row.jackpot_wins_minor), sum('credit', true), `${symbol} jackpot wins`);
      assert.equal(
        BigInt(row.ggr_minor),
        BigInt(row.net_stakes_minor) - BigInt(row.wins_minor) - BigInt(row.jackpot_wins_minor),
      );
    }
    for (const symbol of [NATIVE, CRASH]) {
      const row = rows.find((r) => r.game_symbol === symbol)!;
      assert.deepEqual([row.rounds, row.players, BigInt(row.stakes_minor)], [1, 1, 100n], symbol);
      assert.equal(BigInt(row.ggy_minor), BigInt(row.ggr_minor), `${symbol}: no prize but its win`);
    }
  });

  test('a month-to-date invoice in GBP converts each line at the loaded rate', async () => {
    const contract = await call(h.base, 'PUT', `/api/admin/v1/operators/${OP}/billing-contract`, {
      key: ADMIN_KEY,
      sign: true,
      body: {
        billing_currency: 'GBP',
        minimum_fee_minor: 1,
        tiers: [{ from_ggr_minor: 0, rate_ppm: 200_000 }],
      },
    });
    assert.equal(contract.status, 200, contract.text);
    const rate = await call(h.base, 'POST', '/api/admin/v1/exchange-rates', {
      key: ADMIN_KEY,
      sign: true,
      body: {
        rates: [
          { base_currency: 'EUR', quote_currency: 'GBP', rate_date: today, rate: '0.8345', source: 'ECB' },
        ],
      },
    });
    assert.equal(rate.status, 201, rate.text);
    const res = await call(h.base, 'POST', '/api/admin/v1/invoices', {
      key: ADMIN_KEY,
      sign: true,
      body: { operator_id: OP, period: today.slice(0, 7), preview: true },
    });
    assert.equal(res.status, 200, res.text);
    const inv = res.json.data as {
      billing_currency: string;
      lines: Record<string, any>[];
    };
    assert.equal(inv.billing_currency, 'GBP');
    assert.deepEqual(
      inv.lines.map((l) => [l.currency, l.title_group, l.rate, l.rate_source, l.rate_date]),
      [
        ['EUR', 'prov_a', '0.8345', 'ECB', today],
        ['EUR', 'prov_b', '0.8345', 'ECB', today],
        ['EUR', 'prov_c', '0.8345', 'ECB', today],
        ['EUR', 'prov_d', '0.8345', 'ECB', today],
      ],
    );
    for (const l of inv.lines)
      assert.equal(BigInt(l.ggr_billing_minor), convertMinor(BigInt(l.ggr_minor), '0.8345', 2, 2, 'direct'));
    // The native and the crash round each make their family's line, with the report's GGR of its title.
    const byTitle = (
      await call(
        h.base,
        'GET',
        `/api/operator/v1/reports/revenue?from=${today.slice(0, 7)}-01&to=${today}&group_by=title`,
        {
          key,
          sign: true,
        },
      )
    ).json.data.rows as Record<string, any>[];
    for (const [group, symbol] of [
      ['prov_c', NATIVE],
      ['prov_d', CRASH],
    ]) {
      const line = inv.lines.find((l) => l.title_group === group)!;
      assert.deepEqual([line.titles, line.rounds, line.round_set_size], [[symbol], 1, 1], group);
      assert.equal(
        BigInt(line.ggr_minor),
        BigInt(byTitle.find((r) => r.game_symbol === symbol)!.ggr_minor),
        group,
      );
    }
    const report = (
      await call(
        h.base,
        'GET',
        `/api/operator/v1/reports/revenue?from=${today.slice(0, 7)}-01&to=${today}&group_by=currency`,
        {
          key,
          sign: true,
        },
      )
    ).json.data as { rows: Record<string, any>[] };
    assert.equal(
      inv.lines.reduce((s, l) => s + BigInt(l.ggr_minor), 0n),
      BigInt(report.rows.find((r) => r.currency === 'EUR')!.ggr_minor),
    );
    // Each line's round set, reproduced from the operator's audit reads.
    const { rows } = await h.db.pool.query<{ round_id: string; provider_id: string }>(
      `SELECT DISTINCT r.round_id, r.provider_id FROM rounds r JOIN wallet_transactions t ON t.round_id = r.round_id
        WHERE r.operator_id = $1 AND t.status = 'success' AND t.transaction_type IN ('debit', 'credit')`,
      [OP],
    );
    for (const l of inv.lines) {
      const ids = rows.filter((r) => r.provider_id === l.title_group).map((r) => r.round_id);
      assert.equal(l.round_set_hash, roundSetHash(ids));
      assert.equal(l.round_set_size, ids.length);
    }
  });

  test('the diff, from the wallet’s own ledger less one credit, finds that credit', async () => {
    const ledger = await walletLedger();
    const lost = ledger.find((t) => t.transaction_type === 'credit' && !t.transaction_id.startsWith('pp_'))!;
    const client = createOperatorClient({ baseUrl: h.base, apiKey: key });
    const agree = await findLedgerDifferences(client, ledger, { from: today, to: today });
    assert.deepEqual([agree.onlyOurs, agree.onlyTheirs, agree.mismatched], [[], [], []]);
    assert.equal(agree.calls, 1);
    const res = await findLedgerDifferences(
      client,
      ledger.filter((t) => t.transaction_id !== lost.transaction_id),
      { from: today, to: today },
    );
    assert.deepEqual(
      res.onlyOurs.map((t) => [t.transaction_id, t.round_id]),
      [[lost.transaction_id, lost.round_id]],
    );
    assert.deepEqual(res.onlyTheirs, []);
    assert.ok(res.calls <= 6, `${res.calls} calls`);
  });
});
