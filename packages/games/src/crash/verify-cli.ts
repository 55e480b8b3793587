/**
 * Crash round verifier.
 *
 *   npm run crash-verify -- <round_id> [--api http://127.0.0.1:8080]
 *       fetches the round's public fairness record (GET <api>/games/fairness/<round_id>) and checks it
 *   npm run crash-verify -- --file record.json
 *       checks a saved record (the JSON the page or the endpoint showed)
 *   npm run crash-verify -- <server_seed> --client-seed <seed> --nonce <k> (--symbol dcrash1 | --rtp 97.00)
 *       [--terminal <hash>] [--commitment <hash>]
 *       recomputes a crash point from a revealed seed, and checks it against the chain and commitment
 *
 * Exit status 0 when every check passes, 1 otherwise.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { findEntry } from '../catalog.js';
import { CLIENT_SEED, CRASH_SCHEME, formatMultiplier } from './fairness.js';
import { type FairnessRecord, verifyFairness, verifySeed } from './verify.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    api: { type: 'string', default: 'http://127.0.0.1:8080' },
    file: { type: 'string' },
    'client-seed': { type: 'string' },
    nonce: { type: 'string' },
    symbol: { type: 'string' },
    rtp: { type: 'string' },
    terminal: { type: 'string' },
    commitment: { type: 'string' },
  },
});

function fail(message: string): never {
  process.stderr.write(`crash-verify: ${message}\n`);
  process.exit(2);
}

const mark = (ok: boolean) => (ok ? '[ok]  ' : '[FAIL]');

function printRecord(rec: FairnessRecord): boolean {
  const v = verifyFairness(rec);
  const lines = [
    `round          ${rec.round_id ?? '(no id)'}  ${rec.symbol}  RTP ${rec.rtp}  ${rec.scheme}`,
    `chain          terminal ${rec.chain.terminal_hash}  length ${rec.chain.length}  position ${rec.nonce}`,
    `commitment     ${rec.commitment}`,
    `server seed    ${rec.server_seed ?? '(not revealed yet)'}`,
    `client seed    ${rec.client_seed}`,
    `crash point    ${v.crashCents === null ? '?' : `${formatMultiplier(v.crashCents)}x`} (recorded ${rec.crash_point ?? '-'}x)`,
    `result         ${rec.state}${rec.cashout_multiplier ? ` at ${rec.cashout_multiplier}x` : ''}${typeof rec.cashout_ms === 'number' ? ` (${rec.cashout_ms} ms after the start)` : ''}`,
    ...v.checks.map((c) => `${mark(c.ok)} ${c.what}`),
    v.ok ? 'verified' : 'NOT verified',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return v.ok;
}

async function main(): Promise<boolean> {
  if (values.file) return printRecord(JSON.parse(readFileSync(values.file, 'utf8')) as FairnessRecord);
  const arg = positionals[0];
  if (!arg) fail('give a round id, a server seed, or --file');
  if (/^[0-9a-f]{64}$/.test(arg)) {
    const clientSeed = values['client-seed'];
    if (!clientSeed || !CLIENT_SEED.test(clientSeed))
      fail('--client-seed is required (1-64 printable ASCII)');
    const nonce = Number(values.nonce);
    if (!Number.isSafeInteger(nonce) || nonce < 0) fail('--nonce is required (the chain position)');
    const rtp = values.rtp ?? (values.symbol ? findEntry(values.symbol)?.rtp : undefined);
    if (!rtp) fail('give --symbol <crash title> or --rtp <two decimals>');
    const v = verifySeed({
      serverSeed: arg,
      clientSeed,
      nonce,
      rtp,
      commitment: values.commitment,
      terminal: values.terminal,
    });
    const lines = [
      `scheme         ${CRASH_SCHEME}  RTP ${rtp}`,
      `server seed    ${arg}`,
      `client seed    ${clientSeed}  nonce ${nonce}`,
      `crash point    ${formatMultiplier(v.crashCents)}x`,
      ...v.checks.map((c) => `${mark(c.ok)} ${c.what}`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    return v.ok;
  }
  const url = `${values.api.replace(/\/+$/, '')}/games/fairness/${encodeURIComponent(arg)}`;
  const res = await fetch(url);
  if (!res.ok) fail(`${url} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  const body = (await res.json()) as { data?: FairnessRecord };
  if (!body.data) fail(`${url} answered no record`);
  return printRecord(body.data);
}

process.exit((await main()) ? 0 : 1);
