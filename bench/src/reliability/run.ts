import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { sleep } from '@opi/devstack';
import { fmt } from '../lib/stats.js';
import { hostileInput } from './hostile.js';
import { closeHttp } from './http.js';
import { auditAll, backlog, type Check, checkInvariants, drained } from './invariants.js';
import { closedLoop, type KindSummary, Recorder, RoundLoad } from './load.js';
import { judgeMemory, type MemoryJudgment, type MemoryRule, MemorySampler } from './memory.js';
import type { Profile } from './profile.js';
import { SCENARIOS, type ScenarioContext } from './scenarios.js';
import { configure } from './setup.js';
import { ReliabilityStack } from './stack.js';

export interface ScenarioReport {
  name: string;
  title: string;
  seconds: number;
  drainSeconds: number | null;
  load: KindSummary[];
  checks: Check[];
  facts: string[];
}

export interface MemoryRow extends MemoryJudgment {
  name: string;
  enforced: boolean;
}

export interface RunReport {
  profile: string;
  seconds: number;
  scenarios: ScenarioReport[];
  loadRun?: {
    seconds: number;
    load: KindSummary[];
    memory: MemoryRow[];
    memoryRule: MemoryRule;
    series: Record<string, [number, number][]>;
  };
  events: string[];
  ok: boolean;
  dir: string;
}

/** A run's report before anything ran: no scenario, not ok until the run says so. */
export function emptyReport(profile: string, dir = ''): RunReport {
  return { profile, seconds: 0, scenarios: [], events: [], ok: false, dir };
}

/** Our services are judged for leaks (`judgeMemory`); PostgreSQL and Temporal are reported alongside. */
const ENFORCED = /^(api-\d+|game-\d+|worker-\d+|wallet)$/;

/**
 * Runs the whole suite: starts the stack, configures it, then each fault scenario under a steady
 * round load followed by its invariants, the hostile input, and the load run. Returns the report;
 * `ok` is false when any invariant broke.
 */
export async function runReliability(
  profile: Profile,
  log: (msg: string) => void,
  only?: Set<string>,
): Promise<RunReport> {
  const t0 = Date.now();
  const stack = new ReliabilityStack({ apiProcesses: 2, gameProcesses: 2, workerProcesses: 2, log });
  const report = emptyReport(profile.name);
  const recorder = new Recorder();
  let load: RoundLoad | undefined;
  try {
    await stack.start();
    report.dir = stack.dir;
    // The tournament ends during the fault scenarios (about the fourth), so its payouts meet them.
    const world = await configure(stack, Math.max(30, (profile.leadInSeconds + profile.faultSeconds) * 4));
    load = new RoundLoad(
      stack,
      world,
      recorder,
      {
        players: profile.players,
        thinkMs: profile.thinkMs,
        poorEvery: 6,
      },
      { rounds: profile.freeRoundsPerGrant, playersPerPhase: profile.freeRoundPlayers },
    );
    recorder.begin('warm-up');
    await load.start();
    await sleep(3_000);
    const ctx: ScenarioContext = { stack, world, load, recorder, profile, log };
    /** Rounds a scenario left unsettled past the drain limit (the later drains do not wait for them). */
    const wedged = new Set<string>();

    for (const scenario of SCENARIOS) {
      if (only && !only.has(scenario.name)) continue;
      log(`scenario ${scenario.name}: ${scenario.title}`);
      const started = Date.now();
      recorder.begin(scenario.name);
      // A few players granted free rounds play them through this scenario's fault.
      const freeBefore = load.freeRounds.size;
      const granted = await load.grantFreeRounds().catch(() => []);
      load.resume();
      const seenStuck = new Set<string>();
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          try {
            for (const op of world.operators)
              for (const r of await auditAll(stack, op, 'rounds', { stuck: 'true' }))
                seenStuck.add(r.round_id);
          } catch {
            // The API or its database is down right now: the next sample will tell.
          }
          await sleep(2_000);
        }
      })();
      const result = await scenario.run(ctx).catch((err: unknown) => ({
        recoveredAt: Date.now(),
        checks: [{ name: 'the scenario ran', ok: false, detail: String((err as Error)?.stack ?? err) }],
        facts: [],
      }));
      log(`  fault over after ${((result.recoveredAt - started) / 1000).toFixed(1)} s; draining`);
      await load.pause();
      const drain = await waitForDrain(
        stack,
        world,
        result.recoveredAt,
        profile.drainLimitSeconds + 30,
        wedged,
      );
      sampling = false;
      await sampler;
      recorder.end(scenario.name);
      log(
        `  drained in ${drain.seconds === null ? 'n/a' : `${drain.seconds.toFixed(1)} s`}; checking invariants`,
      );
      const inv = await checkInvariants({ stack, world, load, seenStuck });
      const checks: Check[] = [
        {
          name: `backlog drained within ${profile.drainLimitSeconds} s of recovery`,
          ok: drain.seconds !== null && drain.seconds <= profile.drainLimitSeconds,
          detail:
            drain.seconds === null
              ? `still unsettled after ${profile.drainLimitSeconds + 30} s: ${drain.last}`
              : `${drain.seconds.toFixed(1)} s`,
        },
        ...result.checks,
        ...inv.checks,
      ];
      const entry: ScenarioReport = {
        name: scenario.name,
        title: scenario.title,
        seconds: (Date.now() - started) / 1000,
        drainSeconds: drain.seconds,
        load: recorder.summary(scenario.name),
        checks,
        facts: [
          ...result.facts,
          `free rounds: ${granted.length} players granted ${profile.freeRoundsPerGrant} each at the start; ${load.freeRounds.size - freeBefore} free rounds answered during the scenario`,
          ...inv.facts,
        ],
      };
      report.scenarios.push(entry);
      for (const c of checks) log(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.ok ? '' : `: ${c.detail}`}`);
    }

    if (!only || only.has('hostile-input')) {
      log('hostile input');
      const started = Date.now();
      await load.pause();
      const h = await hostileInput(stack, world, load.openings).catch((err: unknown) => ({
        checks: [{ name: 'hostile input ran', ok: false, detail: String((err as Error)?.stack ?? err) }],
        facts: [],
      }));
      const inv = await checkInvariants({ stack, world, load, seenStuck: new Set() });
      const checks = [...h.checks, ...inv.checks];
      report.scenarios.push({
        name: 'hostile-input',
        title: 'Hostile input: replays, skew, bad signatures, cross-operator, tokens, bodies, injection',
        seconds: (Date.now() - started) / 1000,
        drainSeconds: null,
        load: [],
        checks,
        facts: [...h.facts, ...inv.facts],
      });
      for (const c of checks) log(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.ok ? '' : `: ${c.detail}`}`);
    }

    if (!only || only.has('load-run')) {
      log(`load run: ${profile.loadSeconds} s (warm-up ${profile.loadWarmupSeconds} s)`);
      report.loadRun = await loadRun(stack, world, load, recorder, profile, report, log, wedged);
    }
    report.events = stack.events
      .filter((e) => e.event !== 'started')
      .map(
        (e) =>
          `${new Date(e.at).toISOString().slice(11, 19)} ${e.service} ${e.event}${e.detail ? ` (${e.detail})` : ''}`,
      );
    report.ok = report.scenarios.every((s) => s.checks.every((c) => c.ok));
    return report;
  } finally {
    await load?.stop().catch(() => {});
    await stack.stop().catch(() => {});
    await closeHttp().catch(() => {});
    report.seconds = (Date.now() - t0) / 1000;
  }
}

export async function waitForDrain(
  stack: ReliabilityStack,
  world: Parameters<typeof backlog>[1],
  recoveredAt: number,
  limitSeconds: number,
  wedged: Set<string>,
): Promise<{ seconds: number | null; last: string }> {
  let last = 'not read';
  while (Date.now() - recoveredAt < limitSeconds * 1000) {
    try {
      const b = await backlog(stack, world);
      const fresh = [...b.rounds].filter((id) => !wedged.has(id));
      last = `open ${b.open}, settling ${b.settling}, pending transactions ${b.pending}, stuck ${b.stuck}, unpaid promotional payouts ${b.promos}; rounds and payouts ${fresh.slice(0, 5).join(', ')}`;
      if (drained(b, wedged)) return { seconds: (Date.now() - recoveredAt) / 1000, last };
      if (Date.now() - recoveredAt >= (limitSeconds - 1) * 1000) {
        // Left unsettled: later scenarios are judged without them (they stay reported as broken).
        for (const id of fresh) wedged.add(id);
      }
    } catch (err) {
      last = String(err).slice(0, 200);
    }
    await sleep(1_000);
  }
  return { seconds: null, last };
}

async function loadRun(
  stack: ReliabilityStack,
  world: Parameters<typeof backlog>[1],
  load: RoundLoad,
  recorder: Recorder,
  profile: Profile,
  report: RunReport,
  log: (msg: string) => void,
  wedged: Set<string>,
): Promise<NonNullable<RunReport['loadRun']>> {
  const started = Date.now();
  const sampler = new MemorySampler(() => stack.pids());
  recorder.begin('load-run');
  await load.resize({ players: profile.loadPlayers, thinkMs: [0, 0], poorEvery: 6 });
  await load.grantFreeRounds().catch(() => []);
  load.resume();
  sampler.start(profile.rssEveryMs);
  const until = () => Date.now() - started >= profile.loadSeconds * 1000;
  const progress = setInterval(() => {
    const s = recorder.summary('load-run');
    log(
      `  ${((Date.now() - started) / 1000).toFixed(0)} s: ${s.map((k) => `${k.kind} ${k.count}`).join(', ')}`,
    );
  }, 30_000);
  await Promise.all([
    closedLoop(stack, world, recorder, 'launch', profile.loadLaunchConnections, until),
    closedLoop(stack, world, recorder, 'catalog', profile.loadCatalogConnections, until),
    (async () => {
      while (!until()) await sleep(200);
    })(),
  ]);
  clearInterval(progress);
  sampler.stop();
  recorder.end('load-run');
  await load.pause();
  const drain = await waitForDrain(stack, world, Date.now(), profile.drainLimitSeconds + 30, wedged);
  const inv = await checkInvariants({ stack, world, load, seenStuck: new Set() });

  const memoryRule: MemoryRule = {
    warmupSeconds: profile.loadWarmupSeconds,
    tailFraction: profile.memoryTailFraction,
    maxClimbMbPerMin: profile.maxMemoryClimbMbPerMin,
  };
  const memory: MemoryRow[] = [];
  const series: Record<string, [number, number][]> = {};
  for (const s of sampler.series.values()) {
    series[s.name] = s.samples;
    memory.push({ name: s.name, enforced: ENFORCED.test(s.name), ...judgeMemory(s.samples, memoryRule) });
  }
  const enforced = memory.filter((m) => m.enforced);
  const summary = recorder.summary('load-run');
  const checks: Check[] = [
    {
      name: `no service's memory still climbs faster than ${fmt(memoryRule.maxClimbMbPerMin, 0)} MB/min (its floor over the last ${fmt(memoryRule.tailFraction * 100, 0)}% of the run and the whole run after warm-up)`,
      ok: enforced.length > 0 && enforced.every((m) => m.judged && !m.leaking),
      detail: enforced
        .map(
          (m) =>
            `${m.name} ${m.judged ? `${fmt(m.climbMbPerMin, 1)} MB/min${m.leaking ? ' LEAKING' : ''}` : 'too few samples'} (run ${fmt(m.runSlopeMbPerMin, 1)}, floor ${fmt(m.tailSlopeMbPerMin, 1)}; ${fmt(m.afterWarmupMb, 0)} → ${fmt(m.endMb, 0)} MB, ${fmt(m.growth * 100, 1)}%)`,
        )
        .join(', '),
    },
    {
      name: 'every kind of request was served throughout',
      ok: ['launch', 'catalog', 'spin'].every((k) => (summary.find((s) => s.kind === k)?.count ?? 0) > 0),
      detail: summary.map((s) => `${s.kind} ${s.count}`).join(', '),
    },
    {
      name: 'error rate under load below 1%',
      ok: summary.every((s) => s.errorRate < 0.01),
      detail: summary.map((s) => `${s.kind} ${fmt(s.errorRate * 100, 2)}%`).join(', '),
    },
    {
      name: `backlog drained within ${profile.drainLimitSeconds} s of the load's end`,
      ok: drain.seconds !== null && drain.seconds <= profile.drainLimitSeconds,
      detail: drain.seconds === null ? drain.last : `${drain.seconds.toFixed(1)} s`,
    },
    ...inv.checks,
  ];
  report.scenarios.push({
    name: 'load-run',
    title: `Load run: launches, catalog reads and rounds at once for ${profile.loadSeconds} s`,
    seconds: (Date.now() - started) / 1000,
    drainSeconds: drain.seconds,
    load: summary,
    checks,
    facts: inv.facts,
  });
  for (const c of checks) log(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.ok ? '' : `: ${c.detail}`}`);
  return { seconds: profile.loadSeconds, load: summary, memory, memoryRule, series };
}

/** The report as text. */
export function formatReport(r: RunReport): string {
  const out: string[] = [];
  const line = (s = '') => out.push(s);
  line(`RELIABILITY REPORT — profile ${r.profile}, ${fmt(r.seconds, 0)} s, ${r.ok ? 'PASSED' : 'FAILED'}`);
  line(`run directory: ${r.dir} (process logs, wallet wire log)`);
  for (const s of r.scenarios) {
    line();
    const failed = s.checks.filter((c) => !c.ok).length;
    line(`■ ${s.name} — ${s.title}`);
    line(
      `  ${fmt(s.seconds, 0)} s${s.drainSeconds !== null ? `, drained ${fmt(s.drainSeconds, 1)} s after recovery` : ''}; ${
        failed ? `${failed} BROKEN` : 'all invariants hold'
      }`,
    );
    for (const k of s.load) {
      line(
        `  load ${k.kind.padEnd(7)} ${String(k.count).padStart(6)} req ${fmt(k.perSecond, 1).padStart(6)}/s  p50 ${fmt(k.p50, 0)} ms  p99 ${fmt(k.p99, 0)} ms  errors ${fmt(k.errorRate * 100, 2)}%  ${JSON.stringify(k.statuses)}`,
      );
    }
    for (const f of s.facts) line(`  · ${f}`);
    for (const c of s.checks) line(`  ${c.ok ? '✔' : '✘'} ${c.name} — ${c.detail}`);
  }
  if (r.loadRun) {
    line();
    line(`LOAD RUN (${r.loadRun.seconds} s)`);
    line('  kind        requests      /s    p50 ms    p99 ms   error rate');
    for (const k of r.loadRun.load) {
      line(
        `  ${k.kind.padEnd(10)} ${String(k.count).padStart(9)} ${fmt(k.perSecond, 1).padStart(7)} ${fmt(k.p50, 1).padStart(9)} ${fmt(k.p99, 1).padStart(9)} ${`${fmt(k.errorRate * 100, 2)}%`.padStart(12)}`,
      );
    }
    const rule = r.loadRun.memoryRule;
    line('  memory (MB; RSS, PostgreSQL as the PSS sum of its processes); slopes in MB/min (Theil–Sen):');
    line(
      `  run = every sample after the ${fmt(rule.warmupSeconds, 0)} s warm-up; floor = the least held from each sample on, over the last ${fmt(rule.tailFraction * 100, 0)}% of the run;`,
    );
    line(
      `  climb = the smaller, judged (a leak: over ${fmt(rule.maxClimbMbPerMin, 0)} MB/min), also as % of the level per hour; growth is reported, not judged`,
    );
    line('  part               after warm-up      end     peak   growth    run  floor  climb    %/h');
    for (const m of r.loadRun.memory) {
      const verdict = !m.enforced
        ? '  (reference)'
        : !m.judged
          ? '  NOT JUDGED: too few samples'
          : m.leaking
            ? '  LEAKING'
            : '';
      line(
        `  ${m.name.padEnd(18)} ${fmt(m.afterWarmupMb, 0).padStart(13)} ${fmt(m.endMb, 0).padStart(8)} ${fmt(m.peakMb, 0).padStart(8)} ${`${fmt(m.growth * 100, 1)}%`.padStart(8)} ${fmt(m.runSlopeMbPerMin, 1).padStart(6)} ${fmt(m.tailSlopeMbPerMin, 1).padStart(6)} ${fmt(m.climbMbPerMin, 1).padStart(6)} ${`${fmt(m.pctPerHour, 0)}%`.padStart(6)}${verdict}`,
      );
    }
    line('  memory over time (MB):');
    for (const [name, samples] of Object.entries(r.loadRun.series)) {
      const step = Math.max(1, Math.floor(samples.length / 12));
      line(
        `  ${name.padEnd(18)} ${samples
          .filter((_, i) => i % step === 0 || i === samples.length - 1)
          .map(([t, mb]) => `${fmt(t, 0)}s:${fmt(mb, 0)}`)
          .join(' ')}`,
      );
    }
  }
  if (r.events.length) {
    line();
    line('PROCESS EVENTS');
    for (const e of r.events) line(`  ${e}`);
  }
  line();
  const all = r.scenarios.flatMap((s) => s.checks.map((c) => ({ s: s.name, c })));
  const broken = all.filter((x) => !x.c.ok);
  line(`${all.length - broken.length}/${all.length} checks hold${broken.length ? '; BROKEN:' : ''}`);
  for (const b of broken) line(`  ✘ [${b.s}] ${b.c.name} — ${b.c.detail}`);
  return out.join('\n');
}

export function writeReport(r: RunReport, file?: string): string {
  const text = formatReport(r);
  const target = file ?? (r.dir ? path.join(r.dir, 'report.txt') : undefined);
  if (target) writeFileSync(target, `${text}\n`);
  return text;
}
