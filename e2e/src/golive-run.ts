/**
 * Running the go-live suite as `npm run golive` does, from a test (golive.browser.test.ts,
 * golive-crypto.browser.test.ts): a child process per run with only the GOLIVE_* settings given,
 * its summary read back. Under the test runner each stack uses the run's PostgreSQL (a database
 * cloned from the migrated template) and Temporal server (a task queue of its own).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '@opi/db/testing';
import { E2E_ROOT } from './settings.js';
import type { ItemLine, Summary } from './summary-reporter.js';

const drops: Array<() => Promise<void>> = [];
const outputs: string[] = [];

export async function stackEnv(): Promise<Record<string, string>> {
  if (!process.env.OPI_TEST_PG_URL || !process.env.OPI_TEST_TEMPORAL_ADDRESS) return {};
  const db = await createTestDatabase();
  await db.pool.end();
  drops.push(() => db.drop());
  return {
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: process.env.OPI_TEST_TEMPORAL_ADDRESS,
    TEMPORAL_TASK_QUEUE: `golive-${randomUUID()}`,
  };
}

export interface Run {
  code: number;
  output: string;
  summary: Summary;
  item: (id: string) => ItemLine;
  outputDir: string;
}

/** `npm run golive -- <args>` with these GOLIVE_* settings (none inherited). */
export async function golive(settings: Record<string, string>, args: string[]): Promise<Run> {
  const outputDir = await mkdtemp(path.join(os.tmpdir(), 'golive-out-'));
  outputs.push(outputDir);
  const env: NodeJS.ProcessEnv = { CI: '1' };
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('GOLIVE_') && v !== undefined) env[k] = v;
  Object.assign(env, settings, { GOLIVE_OUTPUT: outputDir });
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', path.join(E2E_ROOT, 'src', 'cli.ts'), ...args],
    { cwd: E2E_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  const code = await new Promise<number>((r) => child.once('exit', (c) => r(c ?? 1)));
  const file = path.join(outputDir, 'summary.json');
  assert.ok(existsSync(file), `the run wrote no summary (exit ${code}):\n${output}`);
  const summary = JSON.parse(readFileSync(file, 'utf8')) as Summary;
  return {
    code,
    output,
    summary,
    outputDir,
    item: (id) => {
      const line = summary.items.find((i) => i.id === id);
      assert.ok(line, `summary line ${id}`);
      return line;
    },
  };
}

/** Drops the databases and removes the output folders of the runs so far (a test file's `after`). */
export async function cleanUpRuns(): Promise<void> {
  for (const drop of drops.splice(0)) await drop().catch(() => {});
  for (const dir of outputs.splice(0)) await rm(dir, { recursive: true, force: true });
}
