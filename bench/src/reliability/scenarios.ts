import { sleep } from '@opi/devstack';
import { signedOk } from './http.js';
import { auditAll, type Check, wireBetween } from './invariants.js';
import { closedLoop, type Recorder, type RoundLoad } from './load.js';
import type { Profile } from './profile.js';
import type { World } from './setup.js';
import { ADMIN_KEY, type ReliabilityStack, type Service, TEMPORAL_SERVER } from './stack.js';

export interface ScenarioContext {
  stack: ReliabilityStack;
  world: World;
  load: RoundLoad;
  recorder: Recorder;
  profile: Profile;
  log: (msg: string) => void;
}

export interface FaultResult {
  /** When the fault ended (everything restarted, the wallet healthy again). */
  recoveredAt: number;
  checks: Check[];
  facts: string[];
}

export interface Scenario {
  name: string;
  title: string;
  run(ctx: ScenarioContext): Promise<FaultResult>;
}

const jitter = (ms: number) => Math.round(ms * (0.75 + Math.random() * 0.5));

/** Pending journal rows of money the wallet has already committed: the records a dead worker owes. */
async function committedButUnrecorded(ctx: ScenarioContext): Promise<number> {
  const { rows: pending } = await ctx.stack.pool.query<{ transaction_id: string }>(
    `SELECT transaction_id FROM wallet_transactions WHERE status = 'pending'`,
  );
  if (pending.length === 0) return 0;
  const { rows } = await ctx.stack.walletPool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM wallet.transactions WHERE transaction_id = ANY($1)`,
    [pending.map((p) => p.transaction_id)],
  );
  return rows[0]!.n;
}

const baseline: Scenario = {
  name: 'baseline',
  title: 'Steady load, no fault (control)',
  async run(ctx) {
    await sleep((ctx.profile.leadInSeconds + ctx.profile.faultSeconds) * 1000);
    return { recoveredAt: Date.now(), checks: [], facts: [] };
  },
};

const workerKills: Scenario = {
  name: 'worker-kills',
  title: 'Workers SIGKILLed repeatedly mid-settlement (wallet mildly faulty meanwhile)',
  async run(ctx) {
    const { stack, profile } = ctx;
    await sleep(profile.leadInSeconds * 1000);
    await stack.walletAdmin.setFaults({
      latencyMs: [20, 400],
      latencyRate: 0.3,
      error5xxRate: 0.05,
      resetRate: 0.05,
      dropAfterCommitRate: 0.05,
    });
    const gap = (profile.faultSeconds * 1000) / profile.workerKills;
    const killed: string[] = [];
    for (let k = 0; k < profile.workerKills; k++) {
      await sleep(jitter(gap));
      // The last kill takes every worker down at once; the others one at a time.
      const victims: Service[] =
        k === profile.workerKills - 1 ? stack.workers : [stack.workers[k % stack.workers.length]!];
      await Promise.all(victims.map((w) => w.kill('SIGKILL')));
      killed.push(victims.map((v) => v.name).join('+'));
      await sleep(300 + Math.floor(Math.random() * 700));
      await Promise.all(victims.map((w) => w.restart()));
    }
    const faults = await stack.walletAdmin.setFaults({});
    return {
      recoveredAt: Date.now(),
      checks: [],
      facts: [
        `SIGKILLed: ${killed.join(', ')}`,
        `wallet faults injected: ${JSON.stringify(faults.counters)}`,
      ],
    };
  },
};

const commitThenKill: Scenario = {
  name: 'commit-then-kill',
  title: "Workers SIGKILLed between the wallet's commit and the journal's record",
  async run(ctx) {
    const { stack, profile } = ctx;
    await sleep(profile.leadInSeconds * 1000);
    let owed = 0;
    const perKill: number[] = [];
    for (let k = 0; k < profile.commitKills; k++) {
      // Every answer is lost after the wallet commits: the worker cannot record what happened.
      await stack.walletAdmin.setFaults({ dropAfterCommitRate: 1 });
      await sleep(2_500);
      const n = await committedButUnrecorded(ctx);
      await Promise.all(stack.workers.map((w) => w.kill('SIGKILL')));
      await stack.walletAdmin.setFaults({});
      perKill.push(n);
      owed += n;
      await sleep(500);
      await Promise.all(stack.workers.map((w) => w.restart()));
      await sleep(jitter(2_000));
    }
    return {
      recoveredAt: Date.now(),
      checks: [
        {
          name: "the kills landed between the wallet's commit and the journal's record",
          ok: owed > 0,
          detail: `transactions committed at the wallet and still pending in the journal at each kill: ${perKill.join(', ')}`,
        },
      ],
      facts: [],
    };
  },
};

/**
 * The process of `side` with the most requests in flight (waiting up to 10 s for one with any),
 * else the k-th in turn.
 */
async function busiest(ctx: ScenarioContext, side: 'apis' | 'games', k: number): Promise<Service> {
  const { stack, load } = ctx;
  let victim: Service | undefined;
  const deadline = Date.now() + 10_000;
  while (!victim && Date.now() < deadline) {
    // Ties go to the process after the k-th, so the kills move round the processes.
    const list = stack[side];
    const turn = (x: Service) => (list.indexOf(x) - k + list.length) % list.length;
    victim = list
      .filter((s) => s.pid && (load.inflight.get(s.name) ?? 0) > 0)
      .sort(
        (x, y) => (load.inflight.get(y.name) ?? 0) - (load.inflight.get(x.name) ?? 0) || turn(x) - turn(y),
      )[0];
    if (!victim) await sleep(20);
  }
  return victim ?? stack[side][k % stack[side].length]!;
}

const apiKills: Scenario = {
  name: 'api-kill',
  title: 'An API process SIGKILLed mid-request (launches in flight; spins go on on the game servers)',
  async run(ctx) {
    const { stack, profile, load, world, recorder } = ctx;
    await sleep(profile.leadInSeconds * 1000);
    // The operator side's own traffic: launches through the API processes while the kills land
    // (the round load launches only when a player needs a token).
    let done = false;
    const launches = closedLoop(stack, world, recorder, 'launch', 3, () => done, load.inflight);
    const cut: string[] = [];
    let midRequest = 0;
    try {
      for (let k = 0; k < profile.apiKills; k++) {
        const victim = await busiest(ctx, 'apis', k);
        const inflight = load.inflight.get(victim.name) ?? 0;
        await victim.kill('SIGKILL');
        if (inflight > 0) midRequest++;
        cut.push(`${victim.name} with ${inflight} launches in flight`);
        await sleep(1_500);
        await victim.restart();
        await sleep(jitter((profile.faultSeconds * 1000) / profile.apiKills));
      }
    } finally {
      done = true;
      await launches;
    }
    return {
      recoveredAt: Date.now(),
      checks: [
        {
          name: 'API processes died with requests in flight',
          ok: midRequest > 0,
          detail: cut.join('; '),
        },
      ],
      facts: [],
    };
  },
};

const gameKills: Scenario = {
  name: 'game-kill',
  title:
    'Game-server processes SIGKILLed mid-spin: their eagerly started rounds and hosted settlement workers with them (the last kill takes every game server down at once)',
  async run(ctx) {
    const { stack, profile, load } = ctx;
    await sleep(profile.leadInSeconds * 1000);
    const cut: string[] = [];
    let midRequest = 0;
    let unsettledAtKills = 0;
    for (let k = 0; k < profile.gameKills; k++) {
      const all = profile.gameKills > 1 && k === profile.gameKills - 1;
      const victims = all ? stack.games : [await busiest(ctx, 'games', k)];
      if (all) {
        // Wait for spins in flight somewhere (up to 10 s).
        for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
          if (victims.some((v) => (load.inflight.get(v.name) ?? 0) > 0)) break;
          await sleep(20);
        }
      }
      const inflight = victims.reduce((n, v) => n + (load.inflight.get(v.name) ?? 0), 0);
      const unsettled = await unsettledRounds(ctx);
      await Promise.all(victims.map((v) => v.kill('SIGKILL')));
      if (inflight > 0) midRequest++;
      unsettledAtKills += unsettled;
      cut.push(
        `${victims.map((v) => v.name).join('+')} with ${inflight} spins in flight (${unsettled} rounds open or settling on the platform)`,
      );
      await sleep(1_500);
      await Promise.all(victims.map((v) => v.restart()));
      await sleep(jitter((profile.faultSeconds * 1000) / profile.gameKills));
    }
    return {
      recoveredAt: Date.now(),
      checks: [
        {
          name: 'game-server processes died with spins in flight',
          ok: midRequest > 0,
          detail: cut.join('; '),
        },
      ],
      facts: [
        `${unsettledAtKills} rounds were open or settling at the kills; their hosted workers died with them, so the worker processes (and the restarted game servers) took them over`,
      ],
    };
  },
};

/** Rounds of the platform not yet settled (open or settling) right now. */
async function unsettledRounds(ctx: ScenarioContext): Promise<number> {
  const { rows } = await ctx.stack.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM rounds WHERE status IN ('open', 'settling')`,
  );
  return rows[0]!.n;
}

/** Cluster mode (`--cluster`, RELIABILITY_CLUSTER=1): the titles say which Temporal is faulted. */
const clusterMode = () => process.env.RELIABILITY_CLUSTER === '1';

const temporalRestart: Scenario = {
  name: 'temporal-restart',
  get title() {
    return clusterMode()
      ? 'The Temporal server SIGKILLed under load, then restarted on the same ports (history on PostgreSQL)'
      : 'The Temporal dev server stopped and restarted under load (history on its SQLite file)';
  },
  async run(ctx) {
    const { stack, profile, log } = ctx;
    await sleep(profile.leadInSeconds * 1000);
    if (stack.cluster) {
      // Killed while rounds are settling (up to 10 s of waiting for one).
      let unsettled = await unsettledRounds(ctx);
      for (const deadline = Date.now() + 10_000; unsettled === 0 && Date.now() < deadline; ) {
        await sleep(50);
        unsettled = await unsettledRounds(ctx);
      }
      const pid = stack.temporalPid;
      const down = Date.now();
      await stack.killTemporal('SIGKILL');
      log(`Temporal server SIGKILLed (pid ${pid}, ${unsettled} rounds open or settling)`);
      await sleep(profile.outageSeconds * 1000);
      const up = Date.now();
      await stack.restartTemporal();
      const answering = (Date.now() - up) / 1000;
      log(`Temporal server restarted (${answering.toFixed(1)} s to answer)`);
      return {
        recoveredAt: Date.now(),
        checks: [],
        facts: [
          `SIGKILLed the Temporal server (pid ${pid}) with ${unsettled} rounds open or settling`,
          `down for ${((Date.now() - down) / 1000).toFixed(1)} s; restarted on the same ports, ${answering.toFixed(1)} s from start to its namespace answering`,
        ],
      };
    }
    const down = Date.now();
    await stack.stopTemporal();
    log(`Temporal stopped (${((Date.now() - down) / 1000).toFixed(1)} s to stop)`);
    await sleep(profile.outageSeconds * 1000);
    const up = Date.now();
    await stack.startTemporal();
    log(`Temporal restarted (${((Date.now() - up) / 1000).toFixed(1)} s to answer)`);
    return {
      recoveredAt: Date.now(),
      checks: [],
      facts: [`down for ${((Date.now() - down) / 1000).toFixed(1)} s`],
    };
  },
};

const postgresRestart: Scenario = {
  name: 'postgres-restart',
  get title() {
    return clusterMode()
      ? "The platform's PostgreSQL, which also holds the Temporal server's databases, stopped and restarted under load"
      : "The platform's PostgreSQL stopped and restarted under load";
  },
  async run(ctx) {
    const { stack, profile, log } = ctx;
    await sleep(profile.leadInSeconds * 1000);
    const temporalPid = stack.temporalPid;
    const eventsBefore = stack.events.length;
    const down = Date.now();
    await stack.stopPg();
    log(`PostgreSQL stopped (${((Date.now() - down) / 1000).toFixed(1)} s to stop)`);
    await sleep(profile.outageSeconds * 1000);
    await stack.startPg();
    const recoveredAt = Date.now();
    log('PostgreSQL restarted');
    const facts = [`down for ${((recoveredAt - down) / 1000).toFixed(1)} s`];
    const checks: Check[] = [];
    if (stack.cluster) {
      // The fault is over when PostgreSQL is back (the drain is timed from here); the Temporal
      // server must then serve again, by itself or restarted by the stack's supervisor.
      const serving = await stack.temporalServing(120_000);
      const answering = (Date.now() - recoveredAt) / 1000;
      const temporalEvents = stack.events
        .slice(eventsBefore)
        .filter((e) => e.service === TEMPORAL_SERVER)
        .map(
          (e) => `${e.event}${e.detail ? ` (${e.detail})` : ''} at +${((e.at - down) / 1000).toFixed(1)} s`,
        );
      const survived = temporalEvents.length === 0 && stack.temporalPid === temporalPid;
      facts.push(
        "the Temporal server's databases (temporal, temporal_visibility) are on this PostgreSQL: Temporal's persistence was down with it",
        survived
          ? `the Temporal server survived the outage (pid ${temporalPid} throughout)`
          : `the Temporal server did not survive the outage: ${temporalEvents.join('; ') || `pid ${temporalPid} → ${stack.temporalPid}`}`,
      );
      checks.push({
        name: 'the Temporal server serves again after its PostgreSQL came back (survived, or restarted by the supervisor)',
        ok: serving,
        detail: serving
          ? `its namespace answered ${answering.toFixed(1)} s after PostgreSQL was back`
          : `no answer within ${answering.toFixed(0)} s of PostgreSQL being back`,
      });
    }
    return { recoveredAt, checks, facts };
  },
};

const walletFaults: Scenario = {
  name: 'wallet-faults',
  title: 'The wallet slow (3-11 s), failing with 5xx, resetting, dropping answers after commit',
  async run(ctx) {
    const { stack, profile } = ctx;
    await sleep(profile.leadInSeconds * 1000);
    await stack.walletAdmin.setFaults({
      latencyMs: [3_000, 11_000],
      latencyRate: 0.25,
      error5xxRate: 0.1,
      resetRate: 0.1,
      dropAfterCommitRate: 0.1,
    });
    await sleep(profile.faultSeconds * 1000 * 1.5);
    const faults = await stack.walletAdmin.setFaults({});
    return {
      recoveredAt: Date.now(),
      checks: [],
      facts: [`wallet faults injected: ${JSON.stringify(faults.counters)}`],
    };
  },
};

const wrongSecret: Scenario = {
  name: 'wrong-secret',
  title: 'The wallet secret rotated wrongly (every callback answered 401), then fixed',
  async run(ctx) {
    const { stack, profile, world } = ctx;
    const op = world.primary;
    const origin = stack.apiOrigin(stack.apis[0]!);
    await sleep(profile.leadInSeconds * 1000);
    const from = Date.now();
    await signedOk(origin, ADMIN_KEY, 'PATCH', `/api/admin/v1/operators/${op.operatorId}`, {
      wallet_secret: `wsec_wrongly_rotated_${'0123456789abcdef'.repeat(2)}`,
    });
    await sleep(profile.faultSeconds * 1000);
    const stuck = (await auditAll(stack, op, 'rounds', { stuck: 'true' })).length;
    await signedOk(origin, ADMIN_KEY, 'PATCH', `/api/admin/v1/operators/${op.operatorId}`, {
      wallet_secret: op.walletSecret,
    });
    const recoveredAt = Date.now();
    const sent = wireBetween(stack, from, recoveredAt).filter((w) => w.operator_id === op.operatorId);
    const rollbacks = sent.filter((w) => w.operation === 'rollback').length;
    return {
      recoveredAt,
      checks: [
        {
          name: 'the 401s were reported: rounds flagged stuck while the secret was wrong',
          ok: stuck > 0,
          detail: `${stuck} rounds of ${op.operatorId} stuck before the fix; ${sent.length} callbacks refused meanwhile`,
        },
        {
          name: 'a 401 is never compensated: no rollback while the secret was wrong',
          ok: rollbacks === 0,
          detail: `${rollbacks} rollbacks sent for ${op.operatorId} during the fault`,
        },
      ],
      facts: [],
    };
  },
};

export const SCENARIOS: Scenario[] = [
  baseline,
  workerKills,
  commitThenKill,
  apiKills,
  gameKills,
  temporalRestart,
  postgresRestart,
  walletFaults,
  wrongSecret,
];
