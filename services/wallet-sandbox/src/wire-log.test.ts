import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sha256Hex } from '@opi/signing';
import { callbackBody, newPlayer, send, startWallet, type WalletHarness } from './test-support/harness.js';
import { WireLog, type WireRecord } from './wire-log.js';

let h: WalletHarness;
let dir: string;
let log: WireLog;

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'wire-log-'));
  log = new WireLog(path.join(dir, 'wire.jsonl'));
  h = await startWallet({ wireLog: log });
});
after(async () => {
  await h.close();
  log.close();
  await rm(dir, { recursive: true, force: true });
});

async function lines(): Promise<WireRecord[]> {
  const text = await readFile(log.file, 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as WireRecord);
}

test('every /wallet request is recorded on arrival: applied, reset, 5xx, bad signature, oversize', async () => {
  const player = await newPlayer(h, 10_000);
  const applied = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 });
  assert.equal((await send(h, applied)).status, 200);

  await h.admin.setFaults({ resetRate: 1 });
  const reset = callbackBody({ transaction_type: 'debit', player_id: player, amount_minor: 100 });
  await assert.rejects(send(h, reset));
  await h.admin.setFaults({ error5xxRate: 1 });
  const failed = callbackBody({ transaction_type: 'credit', player_id: player, amount_minor: 5 });
  assert.equal((await send(h, failed)).status, 500);
  await h.admin.setFaults({});

  const forged = callbackBody({ transaction_type: 'rollback', player_id: player, amount_minor: 100 });
  assert.equal((await send(h, forged, { secret: 'wsec_wrong_secret_0123456789abcdef' })).status, 401);

  const big = JSON.stringify({ pad: 'x'.repeat(70_000) });
  const res = await fetch(`${h.walletUrl}/debit`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: big,
  });
  assert.equal(res.status, 413);
  // The admin API is not recorded.
  await h.admin.getFaults();

  const got = await lines();
  assert.equal(got.length, 5);
  assert.deepEqual(
    got.map((r) => [r.operation, r.transaction_id ?? null]),
    [
      ['debit', applied.transaction_id],
      ['debit', reset.transaction_id],
      ['credit', failed.transaction_id],
      ['rollback', forged.transaction_id],
      ['debit', null],
    ],
  );
  assert.equal(got[0]!.sha256, sha256Hex(JSON.stringify(applied)));
  assert.equal(got[0]!.round_id, applied.round_id);
  assert.equal(got[0]!.amount_minor, 100);
  assert.match(got[0]!.nonce ?? '', /^[0-9a-f]{32}$/);
  assert.equal(got[4]!.bytes, -1);
  assert.deepEqual(
    got.map((r) => r.seq),
    [1, 2, 3, 4, 5],
  );
  // The recorded request was still applied exactly as before.
  const { rows } = await h.db.pool.query(`SELECT outcome FROM wallet.requests WHERE transaction_id = $1`, [
    applied.transaction_id,
  ]);
  assert.deepEqual(
    rows.map((r) => r.outcome),
    ['applied'],
  );
});
