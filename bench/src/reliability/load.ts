import { randomBytes } from 'node:crypto';
import { sleep } from '@opi/devstack';
import { percentile } from '../lib/stats.js';
import { http, signedCall } from './http.js';
import type { OperatorSetup, World } from './setup.js';
import type { ReliabilityStack, Service } from './stack.js';

export type Kind = 'launch' | 'spin' | 'catalog' | 'native' | 'crash';

interface KindStats {
  count: number;
  errors: number;
  statuses: Record<string, number>;
  latencies: number[];
}

export interface KindSummary {
  kind: Kind;
  count: number;
  errors: number;
  errorRate: number;
  perSecond: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
}

/** Requests per phase (a scenario, the load run) and kind: counts, answers, latencies. */
export class Recorder {
  private phases = new Map<string, { started: number; ended?: number; kinds: Map<Kind, KindStats> }>();
  phase = 'setup';

  begin(phase: string): void {
    this.phase = phase;
    if (!this.phases.has(phase)) this.phases.set(phase, { started: Date.now(), kinds: new Map() });
  }

  end(phase: string): void {
    const p = this.phases.get(phase);
    if (p) p.ended = Date.now();
  }

  record(kind: Kind, ms: number, answer: string, ok: boolean): void {
    let p = this.phases.get(this.phase);
    if (!p) {
      p = { started: Date.now(), kinds: new Map() };
      this.phases.set(this.phase, p);
    }
    let s = p.kinds.get(kind);
    if (!s) {
      s = { count: 0, errors: 0, statuses: {}, latencies: [] };
      p.kinds.set(kind, s);
    }
    s.count++;
    if (!ok) s.errors++;
    s.statuses[answer] = (s.statuses[answer] ?? 0) + 1;
    s.latencies.push(ms);
  }

  summary(phase: string): KindSummary[] {
    const p = this.phases.get(phase);
    if (!p) return [];
    const seconds = ((p.ended ?? Date.now()) - p.started) / 1000;
    return [...p.kinds.entries()].map(([kind, s]) => ({
      kind,
      count: s.count,
      errors: s.errors,
      errorRate: s.count ? s.errors / s.count : 0,
      perSecond: s.count / seconds,
      p50: percentile(s.latencies, 50),
      p99: percentile(s.latencies, 99),
      statuses: s.statuses,
    }));
  }
}

const BETS = [10, 20, 50, 100, 200, 500];
const rnd = (n: number) => Math.floor(Math.random() * n);

interface VirtualPlayer {
  operator: OperatorSetup;
  externalId: string;
  currency: string;
  symbol: string;
  token?: string;
  /** Since when the player's spins have been answered 409 (a round still settling). */
  blockedSince?: number;
  /** Free rounds to play first (the launch answer's `free_rounds`): their fixed stake. */
  free?: { campaignId: string; betMinor: string };
}

/** The stake of the suite's free-round campaigns (on every title's 1-2-5 ladder). */
const FREE_ROUND_BET = 100;

/**
 * The live processes of one side, round robin: the API processes (operator side: launches, grants,
 * catalog) or the game servers (players' side: spins).
 */
class Ring {
  private i = 0;
  constructor(
    private readonly stack: ReliabilityStack,
    private readonly side: 'apis' | 'games',
  ) {}
  next(): Service | undefined {
    const list = this.stack[this.side];
    for (let k = 0; k < list.length; k++) {
      const s = list[this.i++ % list.length]!;
      if (s.ready) return s;
    }
    return undefined;
  }
}

export interface RoundLoadOptions {
  players: number;
  thinkMs: [number, number];
  /** Every n-th player opens with little money, so some debits are refused (insufficient funds). */
  poorEvery: number;
}

export interface FreeRoundOptions {
  /** Rounds each granted player gets (the campaign's `rounds`). */
  rounds: number;
  /** Players granted the campaign at the start of each phase (scenario, load run). */
  playersPerPhase: number;
}

/**
 * The steady round load: virtual players who launch through the provider API (signed, as the
 * operator's server does, against the API processes in turn) and then spin through the game
 * runtime with the launch URL's token, as the game page does, one round at a time, against the
 * game-server processes in turn (the launch URL names GAME_BASE_URL; the suite sends the page's
 * requests to a live game server instead). prov_a and prov_b
 * titles, EUR and USD, two operators. A player whose round stays unsettled for a minute is
 * replaced by a new one (the invariants then say why).
 */
export class RoundLoad {
  readonly players: VirtualPlayer[] = [];
  /** Every round id a spin answered. */
  readonly rounds = new Set<string>();
  /** Requests in flight per process: spins on the game servers, launches on the API processes. */
  readonly inflight = new Map<string, number>();
  /** Opening balances the suite gave each wallet account: key operator/player/currency. */
  readonly openings = new Map<string, bigint>();
  replacedPlayers = 0;
  /** Every free round a spin answered (also in `rounds`). */
  readonly freeRounds = new Set<string>();
  /** Each operator's free-round campaign of this run (created by start()). */
  readonly campaigns = new Map<string, string>();
  /** Players granted free rounds: operator/player. */
  readonly granted = new Set<string>();
  private freeCursor = 0;
  private running = false;
  private paused = false;
  private busy = 0;
  private loops: Promise<void>[] = [];
  private readonly ring: Ring;
  private readonly gameRing: Ring;
  private serial = 0;
  private readonly tag = randomBytes(3).toString('hex');

  constructor(
    private readonly stack: ReliabilityStack,
    private readonly world: World,
    private readonly recorder: Recorder,
    private options: RoundLoadOptions,
    private readonly freeRoundOptions?: FreeRoundOptions,
  ) {
    this.ring = new Ring(stack, 'apis');
    this.gameRing = new Ring(stack, 'games');
  }

  private async newPlayer(index: number): Promise<VirtualPlayer> {
    const operator = this.world.operators[index % this.world.operators.length]!;
    const slot = operator.slots[rnd(operator.slots.length)]!;
    const currency = index % 3 === 2 ? 'USD' : 'EUR';
    const externalId = `${operator.operatorId}-${this.tag}-p${++this.serial}`;
    const balance = this.serial % this.options.poorEvery === 0 ? 3_000n : 50_000_000n;
    await this.stack.walletAdmin.createPlayer({
      operatorId: operator.operatorId,
      playerId: externalId,
      currency,
      balanceMinor: balance,
    });
    this.openings.set(`${operator.operatorId}/${externalId}/${currency}`, balance);
    return { operator, externalId, currency, symbol: slot.symbol };
  }

  async start(): Promise<void> {
    this.running = true;
    if (this.freeRoundOptions) await this.createCampaigns(this.freeRoundOptions.rounds);
    for (let i = 0; i < this.options.players; i++) this.players.push(await this.newPlayer(i));
    this.loops = this.players.map((_, i) => this.loop(i));
  }

  /** More (or fewer) players from now on (the load run). */
  async resize(options: RoundLoadOptions): Promise<void> {
    this.options = options;
    while (this.players.length < options.players) {
      const i = this.players.length;
      this.players.push(await this.newPlayer(i));
      this.loops.push(this.loop(i));
    }
  }

  /**
   * A free-round campaign per operator for this run (issue 18): the operator's slot titles, EUR, a
   * fixed stake; players are granted it as the phases start (grantFreeRounds).
   */
  private async createCampaigns(rounds: number): Promise<void> {
    const api = this.stack.apis[0]!;
    for (const op of this.world.operators) {
      const campaignId = `rel-${this.tag}-${op.operatorId}`;
      const res = await signedCall(
        this.stack.apiOrigin(api),
        op.key,
        'POST',
        '/api/provider/v1/free-rounds',
        {
          campaign_id: campaignId,
          symbols: op.slots.map((s) => s.symbol),
          currency: 'EUR',
          bet_minor: FREE_ROUND_BET,
          rounds,
          valid_from: new Date(Date.now() - 3_600_000).toISOString(),
          expires_at: new Date(Date.now() + 2 * 86_400_000).toISOString(),
        },
      );
      if (res.status !== 201)
        throw new Error(`free-round campaign of ${op.operatorId}: ${res.status} ${res.text}`);
      this.campaigns.set(op.operatorId, campaignId);
    }
  }

  /**
   * Call while paused, as a phase starts: a few of the load's players (EUR ones, the campaigns'
   * currency; both operators in turn) are replaced by new players granted the operator's campaign,
   * who then play their free rounds first, through whatever the phase does to the stack.
   */
  async grantFreeRounds(): Promise<string[]> {
    if (!this.freeRoundOptions) return [];
    const eur = this.players.map((_, i) => i).filter((i) => i % 3 !== 2);
    const out: string[] = [];
    for (let k = 0; k < this.freeRoundOptions.playersPerPhase && eur.length > 0; k++) {
      const index = eur[this.freeCursor++ % eur.length]!;
      const p = await this.newPlayer(index);
      const campaignId = this.campaigns.get(p.operator.operatorId)!;
      const api = this.ring.next() ?? this.stack.apis[0]!;
      let res = await signedCall(
        this.stack.apiOrigin(api),
        p.operator.key,
        'POST',
        `/api/provider/v1/free-rounds/${campaignId}/players`,
        { players: [p.externalId] },
      );
      if (res.status !== 200) {
        // Once more through the other process (one may be restarting after a scenario).
        res = await signedCall(
          this.stack.apiOrigin(this.ring.next() ?? api),
          p.operator.key,
          'POST',
          `/api/provider/v1/free-rounds/${campaignId}/players`,
          { players: [p.externalId] },
        );
      }
      if (res.status !== 200) continue;
      this.granted.add(`${p.operator.operatorId}/${p.externalId}`);
      this.players[index] = p;
      out.push(p.externalId);
    }
    return out;
  }

  private async launch(p: VirtualPlayer): Promise<boolean> {
    const api = this.ring.next();
    if (!api) return false;
    const body = {
      symbol: p.symbol,
      external_player_id: p.externalId,
      currency: p.currency,
      device: 'desktop',
    };
    this.inflight.set(api.name, (this.inflight.get(api.name) ?? 0) + 1);
    const res = await signedCall(
      this.stack.apiOrigin(api),
      p.operator.key,
      'POST',
      '/api/provider/v1/launch-url',
      body,
    ).finally(() => this.inflight.set(api.name, (this.inflight.get(api.name) ?? 1) - 1));
    this.recorder.record('launch', res.ms, String(res.status || 'no answer'), res.status === 200);
    if (res.status !== 200) return false;
    p.token = new URL(res.json.launch_url).searchParams.get('mgckey') ?? undefined;
    const free = res.json.free_rounds;
    p.free = free ? { campaignId: free.campaign_id, betMinor: String(free.bet_minor) } : undefined;
    return p.token !== undefined;
  }

  private async spin(p: VirtualPlayer): Promise<void> {
    const game = this.gameRing.next();
    if (!game) {
      await sleep(200);
      return;
    }
    const origin = this.stack.gameOrigin(game);
    this.inflight.set(game.name, (this.inflight.get(game.name) ?? 0) + 1);
    // Free rounds first (the page's spin button plays them), at the campaign's stake.
    const free = p.free;
    const res = await http(origin, 'POST', '/api/runtime/spin', {
      headers: { 'content-type': 'application/json', 'x-session-token': p.token! },
      body: JSON.stringify(
        free ? { bet_minor: Number(free.betMinor), free_round: true } : { bet_minor: BETS[rnd(BETS.length)] },
      ),
      timeoutMs: 30_000,
    });
    this.inflight.set(game.name, (this.inflight.get(game.name) ?? 1) - 1);
    if (res.status === 200) {
      p.blockedSince = undefined;
      this.rounds.add(res.json.round_id);
      if (free) {
        this.freeRounds.add(res.json.round_id);
        if (!res.json.free_round || res.json.free_round.rounds_remaining === 0) p.free = undefined;
      }
      // A settled round (completed, rejected, rolled back) or one still settling (pending): both
      // are answers; an error is only what the page could not use.
      this.recorder.record('spin', res.ms, free ? `free ${res.json.status}` : res.json.status, true);
      return;
    }
    if (res.status === 409 && free && /No free rounds are left/.test(res.text)) {
      // The grant is used up (the last round's answer was lost to a fault): paid spins from now on.
      p.free = undefined;
      this.recorder.record('spin', res.ms, '409 no free rounds left', true);
      return;
    }
    if (res.status === 409 && res.json?.error === 'free_rounds_pending') {
      const f = res.json.free_rounds;
      p.free = { campaignId: f.campaign_id, betMinor: String(f.bet_minor) };
      this.recorder.record('spin', res.ms, '409 free rounds pending', true);
      return;
    }
    if (res.status === 409 && res.json?.bets_blocked) {
      // Player protection: the operator's wallet refused a debit with a code that stops the
      // session's bets until the operator launches the game again; the operator relaunches.
      p.blockedSince = undefined;
      p.token = undefined;
      this.recorder.record('spin', res.ms, `409 bets blocked (${res.json.error})`, true);
      return;
    }
    if (res.status === 429 && res.json?.error === 'wagers_refused') {
      // Issue 34: the wallet refused this (poor) player's last SPIN_REFUSALS_LIMIT wagers within the
      // window, so spins wait for Retry-After. A player who would wait leaves: a new one takes the seat.
      this.recorder.record('spin', res.ms, '429 wagers refused', true);
      const index = this.players.indexOf(p);
      this.players[index] = await this.newPlayer(index);
      this.replacedPlayers++;
      return;
    }
    if (res.status === 409) {
      // The previous round is still being settled: the page waits and tries again.
      p.blockedSince ??= Date.now();
      this.recorder.record('spin', res.ms, '409 settling', true);
      if (Date.now() - p.blockedSince > 60_000) {
        const index = this.players.indexOf(p);
        this.players[index] = await this.newPlayer(index);
        this.replacedPlayers++;
      }
      await sleep(1000);
      return;
    }
    this.recorder.record('spin', res.ms, String(res.status || 'no answer'), false);
    if (res.status === 401) p.token = undefined;
    await sleep(200);
  }

  private async loop(index: number): Promise<void> {
    while (this.running) {
      if (this.paused) {
        await sleep(100);
        continue;
      }
      this.busy++;
      try {
        const p = this.players[index]!;
        if (!p.token) {
          if (!(await this.launch(p))) await sleep(500);
        } else {
          await this.spin(p);
        }
      } catch (err) {
        this.recorder.record('spin', 0, `client error ${String(err).slice(0, 60)}`, false);
        await sleep(500);
      } finally {
        this.busy--;
      }
      const [lo, hi] = this.options.thinkMs;
      if (hi > 0) await sleep(lo + rnd(hi - lo + 1));
    }
  }

  /** Stops issuing requests; resolves once none is in flight. */
  async pause(): Promise<void> {
    this.paused = true;
    while (this.busy > 0) await sleep(50);
  }

  resume(): void {
    this.paused = false;
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}

/**
 * Closed-loop launches and catalog reads for the load run, signed with fresh nonces, against the
 * API processes in turn. Launch players rotate through a fixed pool (first launch creates the
 * player and session, later ones resume and refresh it). `inflight`, when given, counts the requests
 * in flight per API process (the api-kill scenario picks its victim by it).
 */
export async function closedLoop(
  stack: ReliabilityStack,
  world: World,
  recorder: Recorder,
  kind: 'launch' | 'catalog',
  connections: number,
  until: () => boolean,
  inflight?: Map<string, number>,
): Promise<void> {
  const ring = new Ring(stack, 'apis');
  let n = 0;
  const tag = randomBytes(3).toString('hex');
  const request = async (api: Service, op: OperatorSetup, i: number) => {
    if (kind === 'catalog') {
      const res = await signedCall(stack.apiOrigin(api), op.key, 'GET', '/api/provider/v1/games');
      recorder.record('catalog', res.ms, String(res.status || 'no answer'), res.status === 200);
      return;
    }
    const slot = op.slots[i % op.slots.length]!;
    const res = await signedCall(stack.apiOrigin(api), op.key, 'POST', '/api/provider/v1/launch-url', {
      symbol: slot.symbol,
      external_player_id: `${op.operatorId}-${tag}-l${i % 500}`,
      currency: 'EUR',
      return_url: 'https://casino.reliability.test/lobby',
      device: i % 2 ? 'desktop' : 'mobile',
    });
    recorder.record('launch', res.ms, String(res.status || 'no answer'), res.status === 200);
  };
  const one = async () => {
    while (!until()) {
      const api = ring.next();
      if (!api) {
        await sleep(100);
        continue;
      }
      const op = world.operators[n % world.operators.length]!;
      const i = n++;
      inflight?.set(api.name, (inflight.get(api.name) ?? 0) + 1);
      try {
        await request(api, op, i);
      } finally {
        inflight?.set(api.name, (inflight.get(api.name) ?? 1) - 1);
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, one));
}
