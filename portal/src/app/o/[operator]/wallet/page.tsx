import type { WalletCheckStatus } from '@opi/contract';
import type { Metadata } from 'next';
import Link from 'next/link';
import { Badge, Facts, Field, Problem } from '../../../../components/ui';
import { load, operatorParam, qs } from '../../../../lib/api';
import { money, when } from '../../../../lib/format';
import type { AuditEntry, DiagnosticsRun, OperatorInfo } from '../../../../lib/types';

export const metadata: Metadata = { title: 'Wallet diagnostics' };

/** A check's outcome; runs stored before checks had a status carry only `passed`. */
const statusOf = (c: { passed: boolean; status?: WalletCheckStatus }): WalletCheckStatus =>
  c.status ?? (c.passed ? 'passed' : 'failed');

export default async function WalletPage({
  params,
  searchParams,
}: {
  params: Promise<{ operator: string }>;
  searchParams: Promise<Record<string, string | undefined>>;
}) {
  const operator = await operatorParam(params);
  const sp = await searchParams;
  const runId = sp.run && /^\d{1,18}$/.test(sp.run) ? sp.run : undefined;
  const [info, history, run] = await Promise.all([
    load<OperatorInfo>(`/operators/${operator}`),
    load<{ items: AuditEntry[] }>(
      `/operators/${operator}/audit-log${qs({ action: 'wallet.diagnostics', limit: 10 })}`,
    ),
    runId ? load<AuditEntry>(`/operators/${operator}/audit-log/${runId}`) : undefined,
  ]);
  if (!info.ok) return <Problem {...info} />;
  const o = info.data;
  const admin = o.role === 'admin';
  const shown = run?.ok ? run.data : undefined;
  const result = shown ? (shown.detail as unknown as DiagnosticsRun) : undefined;
  return (
    <>
      <h1>Wallet diagnostics</h1>
      <p className="lede">
        The go-live callback checks, run from the platform against {o.name}'s wallet with its configured
        secret (the secret never reaches this page): a bad signature must be refused with 401; balance, debit,
        credit, cancel and rollback must succeed; a repeated transaction_id must return the original result; a
        debit over the balance must fail with insufficient_funds; and, when a protection test player is named
        (a test account the wallet always refuses, set as diagnostics_protection_player_id through the admin
        API), a debit of it must be refused with a player-protection code; a promotional credit (action_type
        promo_win) with no open round and no debit must be credited once, its repeat answered the same. Test
        money nets to zero.
      </p>
      <Facts
        items={[
          ['Wallet address', o.wallet_base_url ?? 'not configured'],
          ['Wallet secret', o.wallet_secret_configured ? 'configured' : 'not configured'],
          ['Test amount', money(o.bet_limits.min, o.default_currency)],
        ]}
      />
      {sp.error ? (
        <div className="notice bad" role="alert" data-testid="diagnostics-error">
          {sp.error}
        </div>
      ) : null}
      <form
        className="filters"
        method="post"
        action={`/o/${operator}/wallet/run`}
        aria-label="Run the wallet checks"
      >
        <Field id="player_id" label="Test player id (the wallet's)">
          <input
            id="player_id"
            name="player_id"
            required
            maxLength={64}
            defaultValue={`${operator}-diagnostics`}
            disabled={!admin}
            autoComplete="off"
          />
        </Field>
        <Field id="currency" label="Currency">
          <select id="currency" name="currency" defaultValue={o.default_currency} disabled={!admin}>
            {o.allowed_currencies.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit" disabled={!admin} data-testid="run-diagnostics">
          Run the checks
        </button>
        {admin ? null : <p className="hint">Running the checks needs the admin role.</p>}
      </form>
      {shown && result ? (
        <section
          aria-labelledby="result-h"
          data-testid="diagnostics-result"
          data-passed={String(result.passed)}
        >
          <h2 id="result-h">
            Result of {when(shown.at)} by {shown.username}
          </h2>
          <div className={`notice indicator ${result.passed ? 'ok' : 'bad'}`} role="status">
            {result.passed
              ? `✓ All ${result.checks.filter((c) => statusOf(c) === 'passed').length} checks run passed.`
              : `✗ ${result.checks.filter((c) => statusOf(c) === 'failed').length} of ${result.checks.length} checks failed.`}
            {result.checks.some((c) => statusOf(c) === 'not_configured')
              ? ` ${result.checks.filter((c) => statusOf(c) === 'not_configured').length} not configured.`
              : ''}
          </div>
          <p className="hint">
            Player <span className="mono">{result.player_id}</span>, {result.currency}, against{' '}
            <span className="mono">{result.wallet_base_url}</span>
          </p>
          <div className="table-wrap">
            <table data-testid="checks">
              <caption>Each check</caption>
              <thead>
                <tr>
                  <th scope="col">Check</th>
                  <th scope="col">Result</th>
                  <th scope="col">Expected</th>
                  <th scope="col">What happened</th>
                  <th scope="col" className="num">
                    HTTP
                  </th>
                  <th scope="col" className="num">
                    Time
                  </th>
                </tr>
              </thead>
              <tbody>
                {result.checks.map((c) => (
                  <tr key={c.id} data-check={c.id} data-passed={String(c.passed)} data-status={statusOf(c)}>
                    <th scope="row">{c.name}</th>
                    <td>
                      {statusOf(c) === 'passed' ? (
                        <Badge tone="ok">passed</Badge>
                      ) : statusOf(c) === 'not_configured' ? (
                        <Badge tone="neutral">not configured</Badge>
                      ) : (
                        <Badge tone="bad">failed</Badge>
                      )}
                    </td>
                    <td>{c.expected}</td>
                    <td>{c.detail}</td>
                    <td className="num">{c.http_status ?? '—'}</td>
                    <td className="num">{c.duration_ms} ms</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ) : null}
      <h2>Earlier runs</h2>
      {history.ok && history.data.items.length ? (
        <div className="table-wrap">
          <table>
            <caption>The last runs</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Result</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {history.data.items.map((e) => (
                <tr key={e.audit_id}>
                  <td>{when(e.at)}</td>
                  <td>{e.username}</td>
                  <td>
                    {e.result === 'passed' ? (
                      <Badge tone="ok">passed</Badge>
                    ) : (
                      <Badge tone="bad">failed</Badge>
                    )}
                  </td>
                  <td>
                    <Link href={`/o/${operator}/wallet?run=${e.audit_id}`}>Show</Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="hint">No run yet.</p>
      )}
    </>
  );
}
