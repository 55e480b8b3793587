import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { type Pool, type PoolClient, withTransaction } from '@opi/db';
import {
  CRASH_CAP_CENTS,
  CRASH_SCHEME,
  type CrashFairnessRow,
  type CrashPhase,
  cashoutAt,
  crashPointCents,
  decidedAtMs,
  findEntry,
  formatMultiplier,
  GROWTH_PER_MS,
  MAX_ROUND_MS,
  MIN_CASHOUT_CENTS,
  payoutMinor,
  phaseAt,
  presentFairnessRecord,
} from '@opi/games';
import { currencyExponent, decimalStringToMinor } from '@opi/money';
import { readBetsBlocked, refusalFacts } from '@opi/play/sessions/bets-blocked';
import { type DisplayFacts, displayFacts } from '@opi/play/sessions/display';
import { assertCycleInterval, recordCycleEnd } from '@opi/play/sessions/gb-rules';
import { assertNoRealityCheckDue, sessionRulesFacts } from '@opi/play/sessions/jurisdiction-rules';
import type { CrashSession } from '@opi/play/sessions/runtime-session';
import {
  assertOnLadder,
  ladderById,
  ladderStakesWithin,
  presentLadder,
  type StakeLadder,
} from '@opi/play/sessions/stake-ladders';
import { assertTakesBets, refuseSuspendedOperator } from '@opi/play/sessions/takes-bets';
import { readWalletBalance } from '@opi/play/sessions/wallet-balance';
import { HttpError } from '@opi/service-kit/http/errors';
import { conflict, invalidField, notFound, runtimeNotConfigured } from '@opi/service-kit/http/named-errors';
import { roundDetailsUrl } from '@opi/signing';
import { type RoundIntent, type RoundOutcome, transactionIdsFor } from '@opi/wallet';
import { cancelUpdate, finishUpdate, recordRound, stageSignal, startSettlement } from '@opi/workflows';
import type { GameDeps } from '../deps.js';
import { startRoundSettlement } from '../settlement/start-round.js';
import {
  consumePosition,
  liveChain,
  type NextCommitment,
  nextCommitment,
  type Owner,
  ownerColumn,
  seedAt,
} from './chain.js';
import { appendStage } from './stages.js';

/** Timing of the crash runtime. Tests may shorten them on a runtime's `options`. */
export interface CrashOptions {
  /** How long a bet waits for its debit before the round is aborted (cancelled), ms. */
  startWindowMs: number;
  /** After the start window, how long before another process's sweeper aborts the round, ms. */
  abortMarginMs: number;
  /** Decisions at the crash or auto cash-out time wait this long for cash-outs still in flight, ms. */
  graceMs: number;
  /** The sweeper's period (rounds whose timer was lost, unanswered settlement steps), ms. */
  sweepEveryMs: number;
  /** How long a cash-out waits for the credit before answering without a balance, ms. */
  settleWaitMs: number;
  /** A round read with `wait=1` answers at the end of the round or after this long, ms. */
  longPollMs: number;
  /** Resend a finish or cancel that has not been answered after this long, ms. */
  resendAfterMs: number;
  /** The settlement workflow's abandon rule (a backstop: the runtime settles every round itself). */
  abandonAfterSeconds: number;
}

export const DEFAULT_CRASH_OPTIONS: CrashOptions = {
  startWindowMs: 10_000,
  abortMarginMs: 5_000,
  graceMs: 250,
  sweepEveryMs: 2_000,
  settleWaitMs: 15_000,
  longPollMs: 10_000,
  resendAfterMs: 30_000,
  // The longest round (start window + the cap's crash time) with ten minutes to spare.
  abandonAfterSeconds: Math.ceil((10_000 + MAX_ROUND_MS) / 1000) + 600,
};

/** Play money of the demo pages: 1,000.00 FUN per demo session. */
export const DEMO_CURRENCY = 'FUN';
export const DEMO_OPENING_MINOR = 100_000n;
export const DEMO_LIMITS = { min: 10n, max: 10_000n };

export interface DemoSession {
  demo_id: string;
  symbol: string;
  expires_at: Date;
}

/** Who is playing: an operator player through a crash authorization, or a demo page. */
export type Actor = { kind: 'wallet'; session: CrashSession } | { kind: 'demo'; demo: DemoSession };

const ownerOf = (a: Actor): Owner =>
  a.kind === 'wallet' ? { kind: 'player', id: a.session.player_id } : { kind: 'demo', id: a.demo.demo_id };
const symbolOf = (a: Actor): string => (a.kind === 'wallet' ? a.session.symbol : a.demo.symbol);

type RoundState = 'debiting' | 'running' | 'cashed_out' | 'crashed' | 'cancelling' | 'cancelled' | 'rejected';

/** A stored round with its chain (ROUND_COLUMNS): its fairness record's row and the round's money and times. */
export interface RoundRow extends CrashFairnessRow {
  mode: 'operator-wallet' | 'demo';
  session_id: string | null;
  player_id: string | null;
  demo_id: string | null;
  currency: string;
  stake_minor: bigint;
  server_seed_enc: string;
  auto_cashout_cents: number | null;
  state: RoundState;
  settled: boolean;
  bet_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
  win_minor: bigint | null;
}

const ROUND_COLUMNS = `cr.round_id, cr.mode, cr.session_id, cr.player_id, cr.demo_id, cr.symbol, trim(cr.currency) AS currency,
  cr.stake_minor, cr.rtp, cr.scheme, cr.chain_id, cr.nonce, cr.commitment, cr.client_seed, cr.server_seed_enc,
  cr.auto_cashout_cents, cr.state, cr.settled, cr.bet_at, cr.started_at, cr.ended_at, cr.cashout_cents, cr.cashout_ms,
  cr.win_minor, cr.server_seed, cr.crash_cents, ch.terminal_hash, ch.length AS chain_length,
  ch.created_at AS chain_created_at`;
const ROUND_FROM = `crash_rounds cr JOIN crash_seed_chains ch ON ch.chain_id = cr.chain_id`;

/** The round as the page sees it: the seed and the crash point only once the round has ended. */
export function presentRound(r: RoundRow, now = Date.now()) {
  const fairness = presentFairnessRecord(r);
  return {
    round_id: r.round_id,
    mode: r.mode,
    symbol: r.symbol,
    state: r.state,
    currency: r.currency,
    stake_minor: r.stake_minor.toString(),
    auto_cashout: r.auto_cashout_cents === null ? null : formatMultiplier(r.auto_cashout_cents),
    bet_at: r.bet_at.getTime(),
    started_at: r.started_at?.getTime() ?? null,
    ended_at: r.ended_at?.getTime() ?? null,
    server_now: now,
    cashout_multiplier: fairness.cashout_multiplier,
    cashout_ms: r.cashout_ms,
    win_minor: r.win_minor?.toString() ?? null,
    crash_point: fairness.crash_point,
    /** Whether the round's money has settled (the credit or cancel answered; demo: at once). */
    settled: r.settled,
    fairness,
  };
}

/** 1-2-5 stakes within the limits (minor units), at most 20. */
export function stakeLadder(min: bigint, max: bigint): string[] {
  const out: bigint[] = [];
  for (let decade = 1n; decade <= max; decade *= 10n) {
    for (const step of [1n, 2n, 5n]) {
      const v = decade * step;
      if (v >= min && v <= max) out.push(v);
    }
  }
  if (out.length === 0 || out[0] !== min) out.unshift(min);
  return out.slice(0, 20).map(String);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)).unref());

function parseStake(raw: unknown): bigint {
  if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw > 0) return BigInt(raw);
  if (typeof raw === 'string' && /^[1-9][0-9]{0,17}$/.test(raw)) return BigInt(raw);
  throw invalidField(['body', 'stake_minor'], 'a positive integer of minor units');
}

export interface BetInput {
  stake_minor: number | string;
  client_seed: string;
  commitment: string;
  /** Optional automatic cash-out target ('2.00'). */
  auto_cashout?: string | number | null | undefined;
}

/**
 * The crash game runtime: bets, the server-timed multiplier, cash-outs, crashes, aborts, and
 * their settlement through the round's workflow (operator-wallet) or the demo session's play
 * money. Server time decides everything: a round starts only once its debit has succeeded, a
 * cash-out counts at the moment the server received it, and a round nobody cashes out is settled
 * at its crash time by a timer, by a read of the round, or by the sweeper of any game-server process.
 */
export class CrashRuntime {
  readonly options: CrashOptions = { ...DEFAULT_CRASH_OPTIONS };
  readonly #events = new EventEmitter();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  #sweeper: NodeJS.Timeout | undefined;
  #sweeping = false;

  constructor(private readonly deps: GameDeps) {
    this.#events.setMaxListeners(0);
  }

  private get pool(): Pool {
    return this.deps.pool;
  }

  private log(level: 'warn' | 'error', msg: string, fields: Record<string, unknown>) {
    this.deps.logger[level](msg, fields);
  }

  // ── reads ────────────────────────────────────────────────────────────────────────────────

  private async loadRound(
    db: Pool | PoolClient,
    roundId: string,
    lock = false,
  ): Promise<RoundRow | undefined> {
    const { rows } = await db.query<RoundRow>(
      `SELECT ${ROUND_COLUMNS} FROM ${ROUND_FROM} WHERE cr.round_id = $1 ${lock ? 'FOR UPDATE OF cr' : ''}`,
      [roundId],
    );
    return rows[0];
  }

  private owns(actor: Actor, r: RoundRow): boolean {
    if (actor.kind === 'wallet')
      return r.player_id === actor.session.player_id && r.symbol === actor.session.symbol;
    return r.demo_id === actor.demo.demo_id;
  }

  /** A round of the actor's, brought up to date first (lazy settlement); 404 for anyone else's. */
  async round(actor: Actor, roundId: string, wait = false) {
    let r = await this.loadRound(this.pool, roundId);
    if (!r || !this.owns(actor, r)) throw notFound('round');
    if (wait && r.state === 'running' && r.started_at) r = await this.waitForEnd(r);
    r = (await this.settleIfDue(r.round_id)) ?? r;
    return presentRound(r);
  }

  /** Waits until the round ends here or its decision time passes (at most longPollMs). */
  private async waitForEnd(r: RoundRow): Promise<RoundRow> {
    const crash = this.crashOf(r);
    const due = r.started_at!.getTime() + decidedAtMs(crash, r.auto_cashout_cents) + this.options.graceMs;
    const until = Math.min(due, Date.now() + this.options.longPollMs);
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.#events.off(r.round_id, done);
        resolve();
      };
      const t = setTimeout(done, Math.max(0, until - Date.now()));
      t.unref();
      this.#events.on(r.round_id, done);
    });
    return (await this.loadRound(this.pool, r.round_id)) ?? r;
  }

  private crashOf(r: RoundRow): number {
    if (r.crash_cents !== null) return r.crash_cents;
    return crashPointCents(this.deps.box.decrypt(r.server_seed_enc), r.client_seed, r.nonce, r.rtp);
  }

  /** Everything the page shows: title, money, stakes, the next commitment, an unfinished round. */
  async state(actor: Actor) {
    const symbol = symbolOf(actor);
    const owner = ownerOf(actor);
    const entry = findEntry(symbol);
    const col = ownerColumn(owner);
    // An unfinished round first (it may settle now), then the latest ended one (its revealed seed).
    const { rows: live } = await this.pool.query<{ round_id: string }>(
      `SELECT round_id FROM crash_rounds WHERE ${col} = $1 AND symbol = $2 AND state IN ('debiting', 'running')`,
      [owner.id, symbol],
    );
    if (live[0]) await this.settleIfDue(live[0].round_id);
    const { rows } = await this.pool.query<RoundRow>(
      `SELECT ${ROUND_COLUMNS} FROM ${ROUND_FROM}
       WHERE cr.${col} = $1 AND cr.symbol = $2 ORDER BY cr.bet_at DESC LIMIT 1`,
      [owner.id, symbol],
    );
    const latest = rows[0];
    const unfinished = latest && (latest.state === 'debiting' || latest.state === 'running') ? latest : null;
    if (unfinished?.state === 'running') this.schedule(unfinished);
    // null while a round runs: the next commitment is that round's seed, revealed when it ends.
    const next = nextCommitment(
      this.deps.box,
      await liveChain(this.pool, this.deps.box, owner, symbol, false),
    );
    const money = await this.money(actor);
    const facts =
      actor.kind === 'wallet' ? await sessionRulesFacts(this.pool, actor.session.session_id) : null;
    return {
      mode: actor.kind === 'wallet' ? 'operator-wallet' : 'demo',
      symbol,
      slug: entry?.slug ?? symbol,
      title: entry?.title ?? symbol,
      rtp: entry?.rtp ?? null,
      currency: money.currency,
      currency_exponent: money.exponent,
      display: money.display,
      balance_minor: money.balanceMinor,
      balance_error: money.error,
      stakes_minor: money.ladder
        ? ladderStakesWithin(money.ladder, money.limits.min, money.limits.max)
        : stakeLadder(money.limits.min, money.limits.max),
      stake_ladder: money.ladder ? presentLadder(money.ladder) : null,
      bet_limits: { min_minor: money.limits.min.toString(), max_minor: money.limits.max.toString() },
      return_url: actor.kind === 'wallet' ? actor.session.return_url : null,
      session_id: actor.kind === 'wallet' ? actor.session.session_id : null,
      // Player protection: set while the operator's wallet has stopped this session's bets.
      bets_blocked:
        actor.kind === 'wallet' ? await readBetsBlocked(this.pool, actor.session.session_id) : null,
      authorized_until: actor.kind === 'wallet' ? (actor.session.expires_at?.toISOString() ?? null) : null,
      // Jurisdiction rules in force, the session's time played and net position, the reality
      // check (sessions/jurisdiction-rules.ts); null on a demo page (no session, no rules).
      rules: facts?.rules ?? null,
      play: facts?.play ?? null,
      reality_check: facts?.reality_check ?? null,
      // GB: when the next bet may be placed (5 s after the last cycle ended); null: no wait applies.
      next_cycle: facts?.next_cycle ?? null,
      curve: {
        growth_per_ms: GROWTH_PER_MS,
        min_cashout: formatMultiplier(MIN_CASHOUT_CENTS),
        cap: formatMultiplier(CRASH_CAP_CENTS),
      },
      next: next ? this.presentNext(next) : null,
      round: unfinished ? presentRound(unfinished) : null,
      last_round: latest && !unfinished ? presentRound(latest) : null,
      server_now: Date.now(),
    };
  }

  private presentNext(next: NextCommitment) {
    return {
      scheme: CRASH_SCHEME,
      chain_id: next.chain.chain_id,
      terminal_hash: next.chain.terminal_hash,
      chain_length: next.chain.length,
      nonce: next.position,
      commitment: next.commitment,
    };
  }

  private async money(actor: Actor): Promise<{
    currency: string;
    exponent: number;
    balanceMinor: string | null;
    error: string | null;
    limits: { min: bigint; max: bigint };
    display: DisplayFacts;
    ladder?: StakeLadder | null;
  }> {
    if (actor.kind === 'demo') {
      const { rows } = await this.pool.query<{ balance_minor: bigint }>(
        `SELECT balance_minor FROM crash_demo_sessions WHERE demo_id = $1`,
        [actor.demo.demo_id],
      );
      return {
        currency: DEMO_CURRENCY,
        exponent: 2,
        balanceMinor: rows[0]?.balance_minor.toString() ?? '0',
        error: null,
        limits: DEMO_LIMITS,
        display: displayFacts({ currency: DEMO_CURRENCY }),
      };
    }
    const s = actor.session;
    const { rows } = await this.pool.query<{ bet_min_minor: bigint; bet_max_minor: bigint }>(
      `SELECT bet_min_minor, bet_max_minor FROM operators WHERE operator_id = $1`,
      [s.operator_id],
    );
    const limits = { min: rows[0]?.bet_min_minor ?? 1n, max: rows[0]?.bet_max_minor ?? 1n };
    const ladder = s.stake_ladder_id ? await ladderById(this.pool, s.stake_ladder_id) : null;
    try {
      const { balance } = await readWalletBalance(this.deps, s);
      return {
        currency: s.currency,
        exponent: currencyExponent(s.currency),
        balanceMinor: decimalStringToMinor(balance, s.currency).toString(),
        error: null,
        limits,
        display: displayFacts(s),
        ladder,
      };
    } catch (err) {
      return {
        currency: s.currency,
        exponent: currencyExponent(s.currency),
        balanceMinor: null,
        error:
          err instanceof HttpError && typeof err.detail === 'string' ? err.detail : 'balance unavailable',
        limits,
        display: displayFacts(s),
        ladder,
      };
    }
  }

  // ── bet ──────────────────────────────────────────────────────────────────────────────────

  /**
   * A bet: the crash point is fixed (the chain's next seed, the client seed, the nonce) and
   * written with the round, its settlement intent and its `bet` stage in one transaction; then
   * the settlement workflow debits. Only after the debit succeeded does the multiplier start.
   * A debit that is not confirmed within the start window aborts the round: the workflow's
   * `cancel` update, which waits for the debit's outcome (never a refund of a debit that did not
   * happen). Demo bets take play money and start at once.
   */
  async bet(actor: Actor, input: BetInput) {
    const stake = parseStake(input.stake_minor);
    const symbol = symbolOf(actor);
    const entry = findEntry(symbol);
    if (entry?.provider_id !== 'prov_d') throw conflict('Not a crash title');
    // A suspended operator starts no round (403); the bet's transaction checks again, under locks.
    if (actor.kind === 'wallet') refuseSuspendedOperator(actor.session);
    let auto: number | null = null;
    if (input.auto_cashout !== undefined && input.auto_cashout !== null && input.auto_cashout !== '') {
      const m = /^([0-9]{1,5})(?:\.([0-9]{1,2}))?$/.exec(String(input.auto_cashout));
      auto = m ? Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')) : null;
      if (auto === null || auto < MIN_CASHOUT_CENTS || auto > CRASH_CAP_CENTS) {
        throw invalidField(
          ['body', 'auto_cashout'],
          `a multiplier from ${formatMultiplier(MIN_CASHOUT_CENTS)} to ${formatMultiplier(CRASH_CAP_CENTS)} with at most two decimals`,
        );
      }
    }
    const money =
      actor.kind === 'demo' ? { min: DEMO_LIMITS.min, max: DEMO_LIMITS.max } : await this.limits(actor);
    if (stake < money.min || stake > money.max) {
      throw invalidField(
        ['body', 'stake_minor'],
        `the stake must be between ${money.min} and ${money.max} minor units`,
      );
    }
    // A session frozen with a stake ladder (issue 39: a crypto currency) takes its stakes only.
    if (actor.kind === 'wallet') await assertOnLadder(this.pool, actor.session, stake, 'stake_minor');
    if (actor.kind === 'wallet' && !this.deps.temporal) throw runtimeNotConfigured('settlement service');

    const owner = ownerOf(actor);
    const roundId = `r_${randomUUID()}`;
    const currency = actor.kind === 'wallet' ? actor.session.currency : DEMO_CURRENCY;
    const intent: RoundIntent | null =
      actor.kind === 'wallet'
        ? {
            roundId,
            operatorId: actor.session.operator_id,
            sessionId: actor.session.session_id,
            playerId: actor.session.external_player_id,
            gameSymbol: symbol,
            providerId: 'prov_d',
            currency,
            actionType: 'crash',
            stakeMinor: stake.toString(),
            winMinor: null,
            transactions: transactionIdsFor(roundId),
            // The round's replay page, fixed now: its credit carries it, the same bytes in every process.
            detailsUrl: roundDetailsUrl(this.deps.gameBaseUrl, this.deps.replayKey, roundId),
            // A backstop only: this runtime settles every round. `cashout` credits the offer the
            // runtime signals at a cash-out (0 until then): a cash-out the runtime recorded is paid
            // even if no game-server process survives to send its `finish`; a round nobody cashed out is a loss.
            multiStep: { abandonAfterSeconds: this.options.abandonAfterSeconds, rule: 'cashout' },
          }
        : null;
    const now = new Date();
    await withTransaction(this.pool, async (c) => {
      const chain = await liveChain(c, this.deps.box, owner, symbol, true);
      const col = ownerColumn(owner);
      const { rows: busy } = await c.query(
        `SELECT round_id FROM crash_rounds WHERE ${col} = $1 AND symbol = $2 AND state IN ('debiting', 'running')`,
        [owner.id, symbol],
      );
      if (busy[0]) throw conflict('A round of this game is still running');
      // No bets in a revoked session (401) or a suspended operator's (403), nor (player protection)
      // in a session the operator's wallet stopped, until relaunch (409): under the session's and
      // the operator's row locks (sessions/takes-bets.ts).
      if (actor.kind === 'wallet') await assertTakesBets(c, actor.session);
      // Jurisdiction rules: no bet while a reality check waits for the player (nothing written).
      if (actor.kind === 'wallet') await assertNoRealityCheckDue(c, actor.session.session_id);
      // GB: 5 s between the end of the last game cycle and this bet (429, nothing written).
      if (actor.kind === 'wallet') await assertCycleInterval(c, actor.session.session_id);
      const next = nextCommitment(this.deps.box, chain);
      if (!next) throw conflict('The previous round has not ended yet');
      if (input.commitment !== next.commitment) {
        throw conflict('The fairness commitment has changed: reload the game', {
          next: this.presentNext(next),
        });
      }
      const seed = seedAt(this.deps.box, chain, next.position);
      if (intent && actor.kind === 'wallet')
        await recordRound(c, { intent, playerPk: actor.session.player_id });
      if (actor.kind === 'demo') {
        const paid = await c.query(
          `UPDATE crash_demo_sessions SET balance_minor = balance_minor - $2 WHERE demo_id = $1 AND balance_minor >= $2`,
          [actor.demo.demo_id, stake],
        );
        if (paid.rowCount !== 1) throw conflict('Not enough play money for this stake');
      }
      try {
        await c.query(
          `INSERT INTO crash_rounds (round_id, mode, wallet_round_id, session_id, player_id, demo_id, symbol, currency,
             stake_minor, rtp, scheme, chain_id, nonce, commitment, client_seed, server_seed_enc, auto_cashout_cents,
             state, bet_at, started_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
          [
            roundId,
            actor.kind === 'wallet' ? 'operator-wallet' : 'demo',
            actor.kind === 'wallet' ? roundId : null,
            actor.kind === 'wallet' ? actor.session.session_id : null,
            actor.kind === 'wallet' ? actor.session.player_id : null,
            actor.kind === 'demo' ? actor.demo.demo_id : null,
            symbol,
            currency,
            stake,
            entry.rtp,
            CRASH_SCHEME,
            chain.chain_id,
            next.position,
            next.commitment,
            input.client_seed,
            this.deps.box.encrypt(seed),
            auto,
            actor.kind === 'wallet' ? 'debiting' : 'running',
            now,
            actor.kind === 'wallet' ? null : now,
          ],
        );
      } catch (err) {
        if ((err as { code?: string }).code === '23505')
          throw conflict('A round of this game is still running');
        throw err;
      }
      if (actor.kind === 'wallet') {
        await appendStage(
          c,
          roundId,
          'bet',
          {
            stake_minor: stake.toString(),
            currency,
            client_seed: input.client_seed,
            auto_cashout: auto === null ? null : formatMultiplier(auto),
          },
          {
            scheme: CRASH_SCHEME,
            chain_id: chain.chain_id,
            terminal_hash: chain.terminal_hash,
            nonce: next.position,
            commitment: next.commitment,
          },
          null,
        );
      }
      await consumePosition(c, chain, next.position);
    });

    if (actor.kind === 'demo') {
      const r = (await this.loadRound(this.pool, roundId))!;
      this.schedule(r);
      return { round: presentRound(r), balance_minor: null, error: null };
    }
    return this.debitThenStart(roundId, intent!, now.getTime());
  }

  private async limits(actor: Actor & { kind: 'wallet' }): Promise<{ min: bigint; max: bigint }> {
    const { rows } = await this.pool.query<{ bet_min_minor: bigint; bet_max_minor: bigint }>(
      `SELECT bet_min_minor, bet_max_minor FROM operators WHERE operator_id = $1`,
      [actor.session.operator_id],
    );
    return { min: rows[0]?.bet_min_minor ?? 1n, max: rows[0]?.bet_max_minor ?? 0n };
  }

  private async debitThenStart(roundId: string, intent: RoundIntent, betAt: number) {
    const temporal = this.deps.temporal!;
    try {
      await startRoundSettlement(temporal, intent);
    } catch (err) {
      // The round cannot start: abort it (the cancel update starts the workflow if it never did).
      this.log('error', 'crash: the settlement workflow did not start; aborting the round', {
        round_id: roundId,
        error: String(err),
      });
      await this.abort(roundId, 'the settlement workflow could not be started').catch(() => {});
      const r = (await this.loadRound(this.pool, roundId))!;
      return { round: presentRound(r), balance_minor: null, error: 'settlement unavailable' };
    }
    const deadline = betAt + this.options.startWindowMs;
    const debit = await this.awaitDebit(roundId, deadline);
    if (debit?.status === 'success') {
      const started = await this.start(roundId, deadline);
      if (started) {
        this.schedule(started);
        return {
          round: presentRound(started),
          balance_minor: this.toMinor(debit.balance, started.currency),
          error: null,
        };
      }
    } else if (debit?.status === 'failed') {
      await this.reject(roundId, debit.error);
      const r = (await this.loadRound(this.pool, roundId))!;
      return {
        round: presentRound(r),
        balance_minor: null,
        error: debit.error,
        // The player-facing text of the wallet's code, and whether the session's bets stopped.
        ...(await refusalFacts(this.pool, intent.sessionId, debit.error)),
      };
    } else {
      await this.abort(roundId, 'the debit was not confirmed within the start window', 1_000).catch(
        (err: unknown) =>
          this.log('warn', 'crash: abort failed (the sweeper retries)', {
            round_id: roundId,
            error: String(err),
          }),
      );
    }
    const r = (await this.loadRound(this.pool, roundId))!;
    return {
      round: presentRound(r),
      balance_minor: null,
      error: r.state === 'running' ? null : 'round aborted',
    };
  }

  private toMinor(balance: string | null, currency: string): string | null {
    if (!balance) return null;
    try {
      return decimalStringToMinor(balance, currency).toString();
    } catch {
      return null;
    }
  }

  /** Polls the journal for the debit's outcome until `deadline` (epoch ms). */
  private async awaitDebit(
    roundId: string,
    deadline: number,
  ): Promise<{ status: 'success'; balance: string | null } | { status: 'failed'; error: string } | null> {
    let delay = 10;
    for (;;) {
      const { rows } = await this.pool.query<{
        status: string;
        wallet_balance: string | null;
        error_code: string | null;
      }>(`SELECT status, wallet_balance, error_code FROM wallet_transactions WHERE transaction_id = $1`, [
        transactionIdsFor(roundId).debit,
      ]);
      const row = rows[0];
      if (row?.status === 'success') return { status: 'success', balance: row.wallet_balance };
      if (row?.status === 'failed') return { status: 'failed', error: row.error_code ?? 'rejected' };
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await sleep(Math.min(delay, left));
      delay = Math.min(delay * 2, 100);
    }
  }

  /** debiting -> running, only within the start window. */
  private async start(roundId: string, deadline: number): Promise<RoundRow | undefined> {
    return withTransaction(this.pool, async (c) => {
      const startedAt = new Date();
      if (startedAt.getTime() > deadline) return undefined;
      const { rowCount } = await c.query(
        `UPDATE crash_rounds SET state = 'running', started_at = $2 WHERE round_id = $1 AND state = 'debiting'`,
        [roundId, startedAt],
      );
      if (rowCount !== 1) return undefined;
      await appendStage(c, roundId, 'start', {}, { started_at: startedAt.toISOString() }, 100);
      return this.loadRound(c, roundId);
    });
  }

  /** The debit was refused for good: the round never ran; its seed is revealed all the same. */
  private async reject(roundId: string, error: string): Promise<void> {
    await withTransaction(this.pool, async (c) => {
      const r = await this.loadRound(c, roundId, true);
      if (r?.state !== 'debiting') return;
      const seed = this.deps.box.decrypt(r.server_seed_enc);
      const crash = this.crashOf(r);
      await c.query(
        `UPDATE crash_rounds SET state = 'rejected', settled = true, ended_at = now(), server_seed = $2, crash_cents = $3
         WHERE round_id = $1`,
        [roundId, seed, crash],
      );
      await appendStage(
        c,
        roundId,
        'reject',
        {},
        { error, server_seed: seed, crash_point: formatMultiplier(crash) },
        null,
      );
    });
    this.#events.emit(roundId);
  }

  // ── abort (cancel) ───────────────────────────────────────────────────────────────────────

  /**
   * A round that cannot start after its bet (the debit was not confirmed in time, the workflow
   * did not start, or the process that took the bet is gone) is cancelled through the workflow's
   * `cancel` update. The workflow applies it once the debit's outcome is known.
   */
  async abort(roundId: string, reason: string, waitMs = 0): Promise<void> {
    const decided = await withTransaction(this.pool, async (c) => {
      const r = await this.loadRound(c, roundId, true);
      if (r?.state !== 'debiting' || r.mode !== 'operator-wallet') return false;
      const seed = this.deps.box.decrypt(r.server_seed_enc);
      const crash = this.crashOf(r);
      await c.query(
        `UPDATE crash_rounds SET state = 'cancelling', ended_at = now(), server_seed = $2, crash_cents = $3,
                settle_sent_at = now()
         WHERE round_id = $1`,
        [roundId, seed, crash],
      );
      await appendStage(
        c,
        roundId,
        'cancel',
        { reason },
        { server_seed: seed, crash_point: formatMultiplier(crash) },
        null,
      );
      return true;
    });
    if (!decided) return;
    this.#events.emit(roundId);
    const sending = this.sendCancel(roundId, reason).catch((err: unknown) => {
      this.log('warn', 'crash: cancel not answered yet (the sweeper resends it)', {
        round_id: roundId,
        error: String(err),
      });
      return null;
    });
    if (waitMs > 0) await Promise.race([sending, sleep(waitMs)]);
  }

  private async sendCancel(roundId: string, reason: string): Promise<RoundOutcome | null> {
    const temporal = this.deps.temporal;
    if (!temporal) return null;
    const { rows } = await this.pool.query<{ intent: RoundIntent }>(
      `SELECT intent FROM rounds WHERE round_id = $1`,
      [roundId],
    );
    if (!rows[0]) return null;
    await this.pool.query(`UPDATE crash_rounds SET settle_sent_at = now() WHERE round_id = $1`, [roundId]);
    const handle = await startSettlement(temporal.client, temporal.taskQueue, rows[0].intent);
    let outcome: RoundOutcome;
    try {
      outcome = await handle.executeUpdate(cancelUpdate, { args: [{ reason }] });
    } catch (err) {
      // Refused by the validator: the workflow is past the point of cancelling (it finished).
      const status = await this.roundStatus(roundId);
      if (status === 'open') throw err;
      outcome = (await handle.result()) as RoundOutcome;
    }
    await this.pool.query(
      `UPDATE crash_rounds SET settled = true,
              state = CASE WHEN $2 = 'cancelled' THEN 'cancelled' ELSE 'rejected' END
       WHERE round_id = $1 AND state = 'cancelling'`,
      [roundId, outcome.status],
    );
    return outcome;
  }

  private async roundStatus(roundId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ status: string }>(
      `SELECT status FROM rounds WHERE round_id = $1`,
      [roundId],
    );
    return rows[0]?.status;
  }

  // ── the end of a round: cash-out, crash, auto cash-out ───────────────────────────────────

  /**
   * A cash-out, timed when the request arrived. Two cash-outs of one round are decided one after
   * the other under the round's row lock: the first ends the round, the second sees it ended.
   */
  async cashout(actor: Actor, roundId: string, receivedAt: number) {
    const decided = await withTransaction(this.pool, async (c) => {
      const r = await this.loadRound(c, roundId, true);
      if (!r || !this.owns(actor, r)) throw notFound('round');
      if (r.state === 'debiting') throw conflict('The round has not started yet');
      if (r.state !== 'running' || !r.started_at) return { r, changed: false as const };
      const crash = this.crashOf(r);
      const ms = Math.max(0, receivedAt - r.started_at.getTime());
      const phase = phaseAt(crash, ms, r.auto_cashout_cents);
      if (phase.state === 'running') {
        const decision = cashoutAt(crash, ms);
        if (!decision.ok)
          throw conflict(`Cash-out opens at ${formatMultiplier(MIN_CASHOUT_CENTS)}x`, {
            reason: decision.reason,
          });
        return this.end(c, r, crash, { state: 'cashed_out', cents: decision.cents, atMs: ms }, 'manual');
      }
      return this.end(c, r, crash, phase, 'auto');
    });
    return this.afterEnd(decided, true);
  }

  /** Ends a running round whose crash (or auto cash-out) time has passed; otherwise nothing. */
  async settleIfDue(roundId: string, now = Date.now()): Promise<RoundRow | undefined> {
    const peek = await this.loadRound(this.pool, roundId);
    if (peek?.state !== 'running' || !peek.started_at) return peek;
    const crash = this.crashOf(peek);
    const elapsed = now - peek.started_at.getTime() - this.options.graceMs;
    if (elapsed < decidedAtMs(crash, peek.auto_cashout_cents)) return peek;
    const decided = await withTransaction(this.pool, async (c) => {
      const r = await this.loadRound(c, roundId, true);
      if (r?.state !== 'running' || !r.started_at) return { r: r ?? peek, changed: false as const };
      const phase = phaseAt(crash, elapsed, r.auto_cashout_cents);
      if (phase.state === 'running') return { r, changed: false as const };
      return this.end(c, r, crash, phase, 'auto');
    });
    await this.afterEnd(decided, false);
    return (await this.loadRound(this.pool, roundId)) ?? peek;
  }

  /** running -> cashed_out | crashed, with its stage, the seed revealed; demo money moves here. */
  private async end(
    c: PoolClient,
    r: RoundRow,
    crash: number,
    phase: Exclude<CrashPhase, { state: 'running' }>,
    how: 'manual' | 'auto',
  ): Promise<{ r: RoundRow; changed: true; winMinor: bigint }> {
    const seed = this.deps.box.decrypt(r.server_seed_enc);
    const started = r.started_at!.getTime();
    const win = phase.state === 'cashed_out' ? payoutMinor(r.stake_minor, phase.cents) : 0n;
    if (phase.state === 'cashed_out' && r.mode === 'operator-wallet') {
      // The cash-out offer reaches the workflow before the round is recorded as cashed out, so
      // its abandon rule would pay it even if no process were left to send the finish.
      await this.deps.temporal!.client.workflow.getHandle(r.round_id).signal(stageSignal, {
        cashoutMinor: win.toString(),
      });
    }
    const endedAt = new Date(started + phase.atMs);
    await c.query(
      `UPDATE crash_rounds SET state = $2, ended_at = $3, cashout_cents = $4, cashout_ms = $5, win_minor = $6,
              server_seed = $7, crash_cents = $8, settled = (mode = 'demo'), settle_sent_at = now()
       WHERE round_id = $1`,
      [
        r.round_id,
        phase.state,
        endedAt,
        phase.state === 'cashed_out' ? phase.cents : null,
        phase.state === 'cashed_out' ? phase.atMs : null,
        win,
        seed,
        crash,
      ],
    );
    // The cash-out or the crash ends the game cycle, at its server time (GB's 5 s count from here).
    if (r.mode === 'operator-wallet' && r.session_id) await recordCycleEnd(c, r.session_id, endedAt);
    if (r.mode === 'demo') {
      if (win > 0n) {
        await c.query(
          `UPDATE crash_demo_sessions SET balance_minor = balance_minor + $2 WHERE demo_id = $1`,
          [r.demo_id, win],
        );
      }
    } else if (phase.state === 'cashed_out') {
      await appendStage(
        c,
        r.round_id,
        'cashout',
        { at_ms: phase.atMs, how, ...(how === 'auto' ? { target: formatMultiplier(phase.cents) } : {}) },
        { win_minor: win.toString(), server_seed: seed, crash_point: formatMultiplier(crash) },
        phase.cents,
      );
    } else {
      await appendStage(
        c,
        r.round_id,
        'crash',
        { at_ms: phase.atMs },
        { win_minor: '0', server_seed: seed, crash_point: formatMultiplier(crash) },
        crash,
      );
    }
    return { r, changed: true, winMinor: win };
  }

  private async afterEnd(
    decided: { r: RoundRow; changed: false } | { r: RoundRow; changed: true; winMinor: bigint },
    waitForCredit: boolean,
  ) {
    const { r } = decided;
    this.clearTimer(r.round_id);
    if (decided.changed) this.#events.emit(r.round_id);
    let balance: string | null = null;
    if (decided.changed && r.mode === 'operator-wallet') {
      const finishing = this.sendFinish(r.round_id, decided.winMinor.toString());
      if (waitForCredit) {
        const outcome = await Promise.race([finishing, sleep(this.options.settleWaitMs).then(() => null)]);
        if (outcome && outcome.status === 'completed') balance = this.toMinor(outcome.balance, r.currency);
      } else {
        finishing.catch(() => {});
      }
    }
    const fresh = (await this.loadRound(this.pool, r.round_id)) ?? r;
    return {
      round: presentRound(fresh),
      balance_minor: balance,
      error: null,
      already_ended: !decided.changed,
    };
  }

  /** The workflow's `finish` update: credits once (a repeat is refused or answered alike). */
  private async sendFinish(roundId: string, winMinor: string): Promise<RoundOutcome | null> {
    const temporal = this.deps.temporal;
    if (!temporal) return null;
    try {
      const outcome = await temporal.client.workflow
        .getHandle(roundId)
        .executeUpdate(finishUpdate, { args: [{ winMinor }] });
      await this.pool.query(`UPDATE crash_rounds SET settled = true WHERE round_id = $1`, [roundId]);
      return outcome;
    } catch (err) {
      const status = await this.roundStatus(roundId).catch(() => undefined);
      if (status && status !== 'open') {
        await this.pool.query(`UPDATE crash_rounds SET settled = true WHERE round_id = $1`, [roundId]);
        return null;
      }
      this.log('warn', 'crash: finish not answered yet (the sweeper resends it)', {
        round_id: roundId,
        error: String(err),
      });
      return null;
    }
  }

  // ── timers and the sweeper ───────────────────────────────────────────────────────────────

  /** A timer at the round's decision time (crash or auto cash-out) plus the grace. */
  private schedule(r: RoundRow): void {
    if (r.state !== 'running' || !r.started_at || this.#timers.has(r.round_id)) return;
    const crash = this.crashOf(r);
    const at = r.started_at.getTime() + decidedAtMs(crash, r.auto_cashout_cents) + this.options.graceMs;
    const t = setTimeout(
      () => {
        this.#timers.delete(r.round_id);
        this.settleIfDue(r.round_id).catch((err: unknown) =>
          this.log('warn', 'crash: settling at the crash time failed (the sweeper retries)', {
            round_id: r.round_id,
            error: String(err),
          }),
        );
      },
      Math.max(0, at - Date.now() + 5),
    );
    t.unref();
    this.#timers.set(r.round_id, t);
  }

  private clearTimer(roundId: string): void {
    const t = this.#timers.get(roundId);
    if (t) clearTimeout(t);
    this.#timers.delete(roundId);
  }

  /** Starts the periodic sweeper (stops by itself once the pool is closed). */
  startSweeper(): void {
    if (this.#sweeper) return;
    this.#sweeper = setInterval(() => {
      if (this.pool.ending || this.pool.ended) {
        this.stop();
        return;
      }
      this.sweep().catch((err: unknown) => {
        if (!this.pool.ending) this.log('warn', 'crash: sweep failed', { error: String(err) });
      });
    }, this.options.sweepEveryMs);
    this.#sweeper.unref();
  }

  stop(): void {
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
  }

  /**
   * One pass over the rounds that are not settled: running rounds whose time has come (a timer
   * lost with its process), bets whose process never started them (aborted), and finish or
   * cancel updates that were not answered. Any game-server process may run it; every transition is
   * conditional, so two passes decide a round once. Expired demo sessions are deleted.
   */
  async sweep(now = Date.now()): Promise<void> {
    if (this.#sweeping) return;
    this.#sweeping = true;
    try {
      const { rows } = await this.pool.query<{
        round_id: string;
        state: RoundState;
        mode: string;
        bet_at: Date;
        settle_sent_at: Date | null;
        round_status: string | null;
      }>(
        `SELECT cr.round_id, cr.state, cr.mode, cr.bet_at, cr.settle_sent_at, r.status AS round_status
         FROM crash_rounds cr LEFT JOIN rounds r ON r.round_id = cr.wallet_round_id
         WHERE NOT cr.settled ORDER BY cr.bet_at LIMIT 500`,
      );
      for (const row of rows) {
        try {
          if (row.state === 'running') {
            await this.settleIfDue(row.round_id, now);
          } else if (row.state === 'debiting') {
            const limit = row.bet_at.getTime() + this.options.startWindowMs + this.options.abortMarginMs;
            if (now >= limit) await this.abort(row.round_id, 'the round was not started after its bet');
          } else if (row.mode === 'demo') {
            await this.pool.query(`UPDATE crash_rounds SET settled = true WHERE round_id = $1`, [
              row.round_id,
            ]);
          } else if (row.round_status && row.round_status !== 'open') {
            await this.pool.query(
              `UPDATE crash_rounds SET settled = true,
                      state = CASE WHEN state = 'cancelling' THEN
                                CASE WHEN $2 = 'cancelled' THEN 'cancelled' ELSE 'rejected' END
                              ELSE state END
               WHERE round_id = $1`,
              [row.round_id, row.round_status],
            );
          } else if (
            !row.settle_sent_at ||
            now - row.settle_sent_at.getTime() >= this.options.resendAfterMs
          ) {
            await this.pool.query(`UPDATE crash_rounds SET settle_sent_at = now() WHERE round_id = $1`, [
              row.round_id,
            ]);
            if (row.state === 'cancelling') {
              this.sendCancel(row.round_id, 'resent by the sweeper').catch(() => {});
            } else {
              const { rows: w } = await this.pool.query<{ win_minor: bigint | null }>(
                `SELECT win_minor FROM crash_rounds WHERE round_id = $1`,
                [row.round_id],
              );
              this.sendFinish(row.round_id, (w[0]?.win_minor ?? 0n).toString()).catch(() => {});
            }
          }
        } catch (err) {
          this.log('warn', 'crash: sweeping a round failed', { round_id: row.round_id, error: String(err) });
        }
      }
      await this.pool.query(`DELETE FROM crash_demo_sessions WHERE expires_at < now()`);
    } finally {
      this.#sweeping = false;
    }
  }
}

const RUNTIMES = new WeakMap<GameDeps, CrashRuntime>();

/** The crash runtime of a game-server process (one per deps), its sweeper started. */
export function crashRuntime(deps: GameDeps): CrashRuntime {
  let rt = RUNTIMES.get(deps);
  if (!rt) {
    rt = new CrashRuntime(deps);
    RUNTIMES.set(deps, rt);
    rt.startSweeper();
  }
  return rt;
}
