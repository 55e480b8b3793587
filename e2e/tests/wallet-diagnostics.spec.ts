/**
 * The go-live items only the platform can cause (issues 25 and 26): cancel and rollback callbacks
 * (`wallet_cancel_rollback`), duplicate transaction_id idempotency (`idempotency`) and a promotional
 * credit with no open round (`promo_win_credit`). Each must be signed with the operator's wallet
 * secret, which only the platform holds, so the suite asks the platform: one run of the wallet
 * diagnostics (POST /api/staff/v1/operators/{operator}/wallet-diagnostics, as the staff portal runs
 * them), with an admin staff account of the operator. The run's checks are the evidence, each with
 * the run's audit id: `cancel` and `rollback`, `duplicate`, `promo_win`. Without a staff account the
 * three items are not checkable.
 */

import { test } from '@playwright/test';
import type { ItemId } from '../src/items.js';
import { describeApiError, operatorClient } from '../src/operator.js';
import { CheckFailed, Recorder } from '../src/record.js';
import { loadSettings, target } from '../src/settings.js';

const settings = loadSettings();

interface WalletCheck {
  id: string;
  status: 'passed' | 'failed' | 'not_configured';
  detail: string;
  http_status: number | null;
}

interface StaffAnswer {
  status: number;
  json: { data?: Record<string, unknown>; detail?: unknown; message?: unknown } | undefined;
  text: string;
}

async function staffApi(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<StaffAnswer> {
  const res = await fetch(`${baseUrl}/api/staff/v1${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(90_000),
  });
  const text = await res.text();
  let json: StaffAnswer['json'];
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

/** "401 Invalid username or password" from a staff API answer. */
const answerOf = (r: StaffAnswer) => {
  const d = r.json?.detail ?? r.json?.message ?? r.text.slice(0, 200);
  return `${r.status} ${typeof d === 'string' ? d : JSON.stringify(d)}`;
};

interface DiagnosticsRun {
  evidence: string;
  checks: WalletCheck[];
}

/** One diagnostics run for the three items (memoised: the first item to need it runs it). */
async function runDiagnostics(staff: { username: string; password: string }): Promise<DiagnosticsRun> {
  const { baseUrl, apiKey } = target(settings);
  const contract = await operatorClient(baseUrl, apiKey)
    .getContract()
    .catch((err: unknown) => {
      throw new Error(`the operator could not be read: ${describeApiError(err)}`);
    });
  const operatorId = contract.data.operator_id;
  const login = await staffApi(baseUrl, 'POST', '/login', {
    username: staff.username,
    password: staff.password,
  });
  if (login.status !== 200)
    throw new Error(`the staff account ${staff.username} could not log in: ${answerOf(login)}`);
  const token = String(login.json?.data?.token);
  let currency = settings.currency;
  if (!currency) {
    const info = await staffApi(baseUrl, 'GET', `/operators/${operatorId}`, undefined, token);
    if (info.status !== 200)
      throw new Error(`the staff API's operator ${operatorId} could not be read: ${answerOf(info)}`);
    currency = String(info.json?.data?.default_currency);
  }
  const player = settings.diagnosticsPlayer ?? `${operatorId}-diagnostics`;
  const run = await staffApi(
    baseUrl,
    'POST',
    `/operators/${operatorId}/wallet-diagnostics`,
    { player_id: player, currency },
    token,
  );
  if (run.status !== 200)
    throw new Error(
      `the wallet diagnostics of ${operatorId} answered ${answerOf(run)}${run.status === 403 ? ` (${staff.username} needs the admin role for ${operatorId})` : ''}`,
    );
  return {
    evidence: `wallet diagnostics of ${operatorId} (audit ${run.json?.data?.audit_id}, player ${player}, ${currency})`,
    checks: (run.json?.data?.checks ?? []) as WalletCheck[],
  };
}

/** The named checks of the run, all passed, as one detail; else throws with the first failure. */
function passedChecks(run: DiagnosticsRun, ids: readonly string[], since: string): string {
  const parts: string[] = [];
  for (const id of ids) {
    const c = run.checks.find((x) => x.id === id);
    if (!c)
      throw new Error(
        `the wallet diagnostics have no ${id} check (the platform predates ${since}): ${run.checks.map((x) => x.id).join(', ')}`,
      );
    if (c.status !== 'passed')
      throw new Error(
        `${run.evidence}: the ${id} check ${c.status === 'failed' ? 'failed' : c.status}${c.http_status === null ? '' : ` (HTTP ${c.http_status})`}: ${c.detail}`,
      );
    parts.push(ids.length > 1 ? `${id}: ${c.detail}` : c.detail);
  }
  return `${run.evidence}: ${parts.join('; ')}`;
}

const NO_STAFF =
  "no staff account (GOLIVE_STAFF_USERNAME and GOLIVE_STAFF_PASSWORD unset): the callback must be signed with the operator's wallet secret, which only the platform holds; run the staff portal's wallet diagnostics, or give the suite an admin staff account of the operator";

test('cancel, rollback, duplicate transaction_id and promo_win callbacks (wallet diagnostics)', async () => {
  const rec = new Recorder(test.info());
  const items = ['wallet_cancel_rollback', 'idempotency', 'promo_win_credit'] as const;
  rec.expect(...items);
  try {
    if (!settings.staff) {
      for (const item of items) rec.notCheckable(item, NO_STAFF);
      return;
    }
    const staff = settings.staff;
    let run: Promise<DiagnosticsRun> | undefined;
    const diagnostics = () => {
      run ??= runDiagnostics(staff);
      return run;
    };
    // Each item is recorded on its own: a refused cancel does not hide the promo_win result.
    const checks: [ItemId, string, readonly string[], string][] = [
      [
        'wallet_cancel_rollback',
        "the operator's wallet takes a cancel and a rollback",
        ['cancel', 'rollback'],
        'issue 26',
      ],
      [
        'idempotency',
        "the operator's wallet answers a repeated transaction_id once",
        ['duplicate'],
        'issue 26',
      ],
      [
        'promo_win_credit',
        "the operator's wallet takes a promo_win credit with no open round",
        ['promo_win'],
        'issue 25',
      ],
    ];
    let firstFailure: unknown;
    for (const [item, title, ids, since] of checks) {
      try {
        await rec.check(item, title, async () => ({
          value: undefined,
          detail: passedChecks(await diagnostics(), ids, since),
        }));
      } catch (err) {
        if (!(err instanceof CheckFailed)) throw err;
        firstFailure ??= err;
      }
    }
    if (firstFailure) throw firstFailure;
  } catch (err) {
    rec.unreached(err);
    throw err;
  }
});
