import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  StaffCampaignRound,
  StaffReconciliationView,
  StaffRoundDetail,
  StaffTimelineEntry,
} from './index.js';

/*
 * The staff API's response schemas (staff-*.ts, issue 36 point 3): the staff routes check their
 * answers against them (services/api/src/staff/respond.ts; every staff test runs that check) and the
 * portal reads their types. These tests keep the portal's side honest: it imports the contract as
 * types only (nothing of it, nor of a server package, reaches the browser bundle), and the contract
 * imports nothing of Node.
 */

const SRC = import.meta.dirname;
const PORTAL = path.join(SRC, '..', '..', '..', 'portal', 'src');

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) files(full, out);
    else if (/\.tsx?$/.test(name)) out.push(full);
  }
  return out;
}

/** Every import or re-export statement (possibly over several lines) and its module. */
function imports(text: string): { statement: string; from: string }[] {
  const out: { statement: string; from: string }[] = [];
  for (const m of text.matchAll(/^(import|export)\b[^;]*?\bfrom\s+'([^']+)'/gms))
    out.push({ statement: m[0], from: m[2]! });
  return out;
}

test('the portal imports @opi/contract as types only (nothing of it is bundled)', () => {
  const offenders: string[] = [];
  let typeImports = 0;
  for (const file of files(PORTAL)) {
    for (const i of imports(readFileSync(file, 'utf8'))) {
      if (!i.from.startsWith('@opi/')) continue;
      if (i.from === '@opi/contract' && /^(import|export) type\b/.test(i.statement)) typeImports++;
      else offenders.push(`${path.relative(PORTAL, file)}: ${i.statement.split('\n')[0]}`);
    }
  }
  assert.deepEqual(offenders, [], 'the portal may take only types of @opi/contract');
  assert.ok(typeImports > 0, 'the portal reads the staff API types from the contract');
});

test('the staff response schemas import nothing of Node or of a server package', () => {
  for (const file of files(SRC).filter((f) => /\/staff-[a-z-]+\.ts$/.test(f) && !f.endsWith('.test.ts'))) {
    for (const i of imports(readFileSync(file, 'utf8')))
      assert.ok(
        i.from === 'zod' || i.from.startsWith('./'),
        `${path.basename(file)} imports ${i.from}: the contract stays browser-safe`,
      );
  }
});

test('int64 amounts: bigint in the API process, numbers in the portal, both accepted', () => {
  const entry = {
    transaction_id: 'r1:debit',
    transaction_type: 'debit',
    status: 'success',
    amount_minor: 9_007_199_254_740_993n,
    attempts: 1,
    http_status: 200,
    error_code: null,
    wallet_balance: '10.00',
    original_transaction_id: null,
    created_at: '2026-01-01T00:00:00.000Z',
    completed_at: null,
  };
  assert.ok(StaffTimelineEntry.safeParse(entry).success);
  assert.ok(StaffTimelineEntry.safeParse({ ...entry, amount_minor: 100 }).success);
  assert.equal(StaffTimelineEntry.safeParse({ ...entry, amount_minor: 1.5 }).success, false);
  assert.equal(StaffTimelineEntry.safeParse({ ...entry, amount_minor: '100' }).success, false);
  const round = { round_id: 'r', created_at: 'x', settled_at: null, player_id: 'p', session_id: 's' };
  const more = { game_symbol: 'g', status: 'completed', stuck: false, win_minor: 0n, currency: 'EUR' };
  assert.ok(StaffCampaignRound.safeParse({ ...round, ...more, bet_minor: null }).success);
});

test('a staff response missing a field the portal reads is refused', () => {
  const parsed = StaffRoundDetail.safeParse({ round_id: 'r' });
  assert.equal(parsed.success, false);
  const keys = new Set(parsed.error!.issues.map((i) => i.path[0]));
  for (const k of ['timeline', 'stages', 'multi_step', 'transactions', 'round_details_url'])
    assert.ok(keys.has(k), k);
  assert.equal(StaffReconciliationView.safeParse({}).success, false);
});
