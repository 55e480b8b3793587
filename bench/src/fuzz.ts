/**
 * The schema-driven fuzzer (services/api/src/test-support/fuzz.ts, the generator the fuzz test
 * uses) for as long as asked, against one API process in production mode (every keyed request
 * signed, SIGNED_REQUESTS=required) on a private PostgreSQL with the catalog, its own operators,
 * sessions and journalled rounds. Every operation of the served OpenAPI document gets batches of
 * generated and hostile requests in turn. Prints the requests per operation, the status histogram
 * and every answer that broke the document; exits 1 on any 5xx or undocumented status or body.
 *
 *   npm run bench -- fuzz                      (1 minute)
 *   npm run bench -- fuzz --minutes 10 [--seed 42] [--concurrency 4]
 */
import { buildOpenApiDocument, type OpenApiDocument } from '@opi/api';
import {
  formatFailures,
  formatHistogram,
  fuzzOperation,
  fuzzOperations,
  newStats,
  prepareFuzzWorld,
} from '@opi/testkit/fuzz';
import { documentValidator } from '@opi/testkit/openapi';
import { BENCH_ADMIN_KEY, startBenchStack } from './lib/stack.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const raw = i >= 0 ? process.argv[i + 1] : process.env[`FUZZ_${name.toUpperCase()}`];
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
  return n;
}

const MINUTES = arg('minutes', 1);
const SEED = arg('seed', Date.now() % 1_000_000_000);
const CONCURRENCY = arg('concurrency', 4);
/** Requests of one operation per turn. */
const BATCH = 25;

const stack = await startBenchStack();
let failed = true;
try {
  const api = await stack.startApi();
  const fixtures = await prepareFuzzWorld({ base: api.origin, adminKey: BENCH_ADMIN_KEY, pool: stack.pool });
  const served = (await (
    await fetch(`${api.origin}/api/provider/v1/openapi.json`)
  ).json()) as OpenApiDocument;
  const ops = fuzzOperations(served);
  const validator = documentValidator(buildOpenApiDocument({ strict: true }));
  const stats = newStats();
  console.log(
    `fuzz: ${ops.length} operations, ${MINUTES} min, seed ${SEED}, ${CONCURRENCY} in flight (production mode, signed)`,
  );
  const started = Date.now();
  const deadline = started + MINUTES * 60_000;
  let nextReport = started + 60_000;
  let turn = 0;
  // Two operations at a time, CONCURRENCY / 2 requests in flight each, round-robin until the deadline.
  const lanes = Array.from({ length: 2 }, async () => {
    while (Date.now() < deadline) {
      const t = turn++;
      const op = ops[t % ops.length]!;
      await fuzzOperation({
        base: api.origin,
        doc: served,
        validator,
        fixtures,
        op,
        seed: SEED + t,
        runs: BATCH,
        concurrency: Math.max(1, CONCURRENCY / 2),
        stats,
      });
      if (Date.now() >= nextReport) {
        nextReport += 60_000;
        console.log(
          `  ${((Date.now() - started) / 60_000).toFixed(1)} min: ${stats.total} requests, ${stats.failures.length} failures`,
        );
      }
    }
  });
  await Promise.all(lanes);
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `\nrequests per operation (${stats.total} in ${seconds.toFixed(0)} s, ${(stats.total / seconds).toFixed(0)}/s):`,
  );
  for (const op of ops) {
    const statuses = [...stats.perOperationStatus.entries()]
      .filter(([k]) => k.startsWith(`${op.operationId} `))
      .map(([k, n]) => `${k.split(' ')[1]}×${n}`)
      .join(' ');
    console.log(
      `  ${op.method.padEnd(6)} ${op.template.padEnd(58)} ${String(stats.perOperation.get(op.operationId) ?? 0).padStart(6)}  ${statuses}`,
    );
  }
  if (process.env.FUZZ_VERBOSE) for (const s of stats.samples) console.log(`  sample ${s}`);
  console.log(`\nstatus histogram: ${formatHistogram(stats.statuses)}`);
  const fivexx = [...stats.statuses.entries()].filter(([s]) => s >= 500).reduce((a, [, n]) => a + n, 0);
  console.log(`5xx answers: ${fivexx} (a documented non-error 5xx, /ready's "not ready", is not a failure)`);
  if (stats.failures.length) {
    console.log(
      `\n${stats.failures.length} answers broke the document (seed ${SEED}):\n${formatFailures(stats.failures, 40)}`,
    );
  } else {
    console.log('no answer broke the document');
  }
  failed = stats.failures.length > 0;
} finally {
  await stack.stop();
}
process.exit(failed ? 1 : 0);
