import { randomBytes } from 'node:crypto';
import { sleep } from '@opi/devstack';
import { http, signedCall, signedOk } from './http.js';
import type { Recorder } from './load.js';
import type { OperatorSetup, World } from './setup.js';
import { ADMIN_KEY, type ReliabilityStack, type Service } from './stack.js';

/** The native title and the crash title the family load plays (both operator-wallet titles). */
export const NATIVE_TITLE = 'cndice';
export const CRASH_TITLE = 'dcrash1';

/**
 * Turns on operator-wallet transport for the native dice title and assigns it and the crash title
 * to every operator of the world (the admin API, as staff would).
 */
export async function configureFamilies(stack: ReliabilityStack, world: World): Promise<void> {
  const origin = stack.apiOrigin(stack.apis[0]!);
  await signedOk(origin, ADMIN_KEY, 'PUT', `/api/admin/v1/games/${NATIVE_TITLE}/operator-wallet`, {
    enabled: true,
  });
  for (const o of world.operators)
    for (const symbol of [NATIVE_TITLE, CRASH_TITLE])
      await signedOk(origin, ADMIN_KEY, 'PUT', `/api/admin/v1/operators/${o.operatorId}/games/${symbol}`, {
        enabled: true,
      });
}

interface FamilyPlayer {
  operator: OperatorSetup;
  externalId: string;
  token?: string;
}

/**
 * Rounds of the other two families beside the slot load: native dice (one bet settles a round:
 * debit then credit) and crash (a bet with an automatic cash-out at 1.50; the round runs, then
 * settles by the cash-out or the crash), one virtual player at a time each, through the launch
 * URL's grant as their pages do, against the live API and game-server processes in turn. Each
 * answer is recorded as `native` or `crash` in the recorder's current phase.
 */
export class FamilyLoad {
  readonly rounds = new Set<string>();
  private running = true;
  private loops: Promise<void>[] = [];
  private i = 0;

  constructor(
    private readonly stack: ReliabilityStack,
    private readonly world: World,
    private readonly recorder: Recorder,
    /** The suite's opening balances (RoundLoad.openings): the money invariants start from them. */
    private readonly openings: Map<string, bigint>,
    private readonly playersPerFamily = 2,
  ) {}

  private next(list: Service[]): Service | undefined {
    for (let k = 0; k < list.length; k++) {
      const s = list[this.i++ % list.length]!;
      if (s.ready) return s;
    }
    return undefined;
  }

  async start(): Promise<void> {
    const tag = randomBytes(3).toString('hex');
    for (const family of ['native', 'crash'] as const) {
      for (let n = 0; n < this.playersPerFamily; n++) {
        const operator = this.world.operators[n % this.world.operators.length]!;
        const currency = family === 'crash' ? 'USD' : 'EUR';
        const p: FamilyPlayer = { operator, externalId: `${operator.operatorId}-${family}-${tag}-${n}` };
        await this.stack.walletAdmin.createPlayer({
          operatorId: operator.operatorId,
          playerId: p.externalId,
          currency,
          balanceMinor: 1_000_000,
        });
        this.openings.set(`${operator.operatorId}/${p.externalId}/${currency}`, 1_000_000n);
        this.loops.push(this.loop(family, p, currency));
      }
    }
  }

  private async launch(family: 'native' | 'crash', p: FamilyPlayer, currency: string): Promise<boolean> {
    const api = this.next(this.stack.apis);
    const game = this.next(this.stack.games);
    if (!api || !game) return false;
    const res = await signedCall(
      this.stack.apiOrigin(api),
      p.operator.key,
      'POST',
      '/api/provider/v1/launch-url',
      {
        symbol: family === 'native' ? NATIVE_TITLE : CRASH_TITLE,
        external_player_id: p.externalId,
        currency,
        device: 'mobile',
      },
    );
    this.recorder.record('launch', res.ms, String(res.status || 'no answer'), res.status === 200);
    if (res.status !== 200) return false;
    const url = new URL(res.json.launch_url);
    const origin = this.stack.gameOrigin(game);
    if (family === 'native') {
      const grant = url.searchParams.get('grant') ?? url.searchParams.get('token');
      const ex = await http(origin, 'POST', '/api/runtime/native/session-from-grant', {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant }),
      });
      p.token = ex.status === 200 ? ex.json.token : undefined;
    } else {
      const login = url.searchParams.get('login') ?? '';
      const ex = await http(origin, 'POST', '/api/runtime/crash/authorize', {
        headers: { 'x-login-grant': login },
      });
      p.token = ex.status === 200 ? ex.json.session_token : undefined;
    }
    return p.token !== undefined;
  }

  private async play(family: 'native' | 'crash', p: FamilyPlayer): Promise<void> {
    const game = this.next(this.stack.games);
    if (!game) return void (await sleep(200));
    const origin = this.stack.gameOrigin(game);
    const headers = { 'content-type': 'application/json', 'x-session-token': p.token! };
    if (family === 'native') {
      const res = await http(origin, 'POST', '/api/runtime/native/bet', {
        headers,
        body: JSON.stringify({ stake_minor: '100', target: 5000 }),
      });
      if (res.json?.round?.round_id) this.rounds.add(res.json.round.round_id);
      // 409: the previous round is still settling (the page waits); 401: the play token expired.
      const ok = res.status === 200 || res.status === 409;
      this.recorder.record(
        'native',
        res.ms,
        res.status === 200 ? String(res.json.round?.status) : String(res.status),
        ok,
      );
      if (res.status === 401) p.token = undefined;
      if (!ok) await sleep(300);
      return;
    }
    const state = await http(origin, 'GET', '/api/runtime/crash/state', { headers });
    if (state.status === 401) {
      p.token = undefined;
      return;
    }
    if (state.status !== 200 || state.json.round || !state.json.next) {
      // A round of this player still runs (or settles): wait for it.
      await sleep(500);
      return;
    }
    const res = await http(origin, 'POST', '/api/runtime/crash/bet', {
      headers,
      body: JSON.stringify({
        stake_minor: '100',
        client_seed: `drill-${randomBytes(4).toString('hex')}`,
        commitment: state.json.next.commitment,
        auto_cashout: '1.50',
      }),
    });
    if (res.json?.round?.round_id) this.rounds.add(res.json.round.round_id);
    const ok = res.status === 200 || res.status === 409;
    this.recorder.record(
      'crash',
      res.ms,
      res.status === 200 ? String(res.json.round?.state) : String(res.status),
      ok,
    );
    if (!ok) await sleep(300);
  }

  private async loop(family: 'native' | 'crash', p: FamilyPlayer, currency: string): Promise<void> {
    while (this.running) {
      try {
        if (!p.token) {
          if (!(await this.launch(family, p, currency))) await sleep(500);
        } else {
          await this.play(family, p);
        }
      } catch (err) {
        this.recorder.record(family, 0, `client error ${String(err).slice(0, 60)}`, false);
        await sleep(500);
      }
      await sleep(300 + Math.floor(Math.random() * 400));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}
