/**
 * promo_win_credit (issue 25): the operator's wallet accepts a promotional credit (a tournament
 * prize or prize drop) with no open round and no debit, and answers its repeat the same, credited
 * once. The credit must be signed with the operator's wallet secret, which only the platform holds,
 * so the suite asks the platform: the wallet diagnostics (POST /api/staff/v1/operators/{operator}/
 * wallet-diagnostics, as the staff portal runs them), with an admin staff account of the operator.
 * Its `promo_win` check is the evidence, with the run's audit id; the other checks of the run are
 * the portal's (not items of this suite). Without a staff account the item is not checkable.
 */

import { test } from '@playwright/test';
import { describeApiError, operatorClient } from '../src/operator.js';
import { Recorder } from '../src/record.js';
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

test('promotional credit: promo_win with no open round (wallet diagnostics)', async () => {
  const rec = new Recorder(test.info());
  const { baseUrl, apiKey } = target(settings);
  rec.expect('promo_win_credit');
  try {
    if (!settings.staff) {
      rec.notCheckable(
        'promo_win_credit',
        "no staff account (GOLIVE_STAFF_USERNAME and GOLIVE_STAFF_PASSWORD unset): a promo_win credit must be signed with the operator's wallet secret, which only the platform holds; run the staff portal's wallet diagnostics (Promotional credit), or give the suite an admin staff account of the operator",
      );
      return;
    }
    const staff = settings.staff;
    await rec.check(
      'promo_win_credit',
      "the operator's wallet takes a promo_win credit with no open round",
      async () => {
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
        const checks = (run.json?.data?.checks ?? []) as WalletCheck[];
        const promo = checks.find((c) => c.id === 'promo_win');
        if (!promo)
          throw new Error(
            `the wallet diagnostics have no promo_win check (the platform predates issue 25): ${checks.map((c) => c.id).join(', ')}`,
          );
        const evidence = `wallet diagnostics of ${operatorId} (audit ${run.json?.data?.audit_id}, player ${player}, ${currency})`;
        if (promo.status !== 'passed')
          throw new Error(
            `${evidence}: the promo_win check failed${promo.http_status === null ? '' : ` (HTTP ${promo.http_status})`}: ${promo.detail}`,
          );
        return { value: undefined, detail: `${evidence}: ${promo.detail}` };
      },
    );
  } catch (err) {
    rec.unreached(err);
    throw err;
  }
});
