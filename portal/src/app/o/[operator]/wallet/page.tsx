import type { WalletCheckStatus } from '@opi/contract';
import type { Metadata } from 'next';
import Link from 'next/link';
import { DataTable, TableOr } from '../../../../components/table';
import { Badge, Facts, Field, Problem } from '../../../../components/ui';
import { load, type OperatorPageProps, operatorParam, qs } from '../../../../lib/api';
import { money, when } from '../../../../lib/format';
import type { AuditEntry, DiagnosticsRun, OperatorInfo } from '../../../../lib/types';

export const metadata: Metadata = { title: 'Wallet diagnostics' };

/** A check's outcome; runs stored before checks had a status carry only `passed`. */
const statusOf = (c: { passed: boolean; status?: WalletCheckStatus }): WalletCheckStatus =>
  c.status ?? (c.passed ? 'passed' : 'failed');

export default async function WalletPage({ params, searchParams }: OperatorPageProps) {
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
          <DataTable
            testId="checks"
            caption="Each check"
            rows={result.checks}
            rowKey={(c) => c.id}
            rowAttrs={(c) => ({
              'data-check': c.id,
              'data-passed': String(c.passed),
              'data-status': statusOf(c),
            })}
            columns={[
              { head: 'Check', rowHeader: true, cell: (c) => c.name },
              {
                head: 'Result',
                cell: (c) =>
                  statusOf(c) === 'passed' ? (
                    <Badge tone="ok">passed</Badge>
                  ) : statusOf(c) === 'not_configured' ? (
                    <Badge tone="neutral">not configured</Badge>
                  ) : (
                    <Badge tone="bad">failed</Badge>
                  ),
              },
              { head: 'Expected', cell: (c) => c.expected },
              { head: 'What happened', cell: (c) => c.detail },
              { head: 'HTTP', num: true, cell: (c) => c.http_status ?? '—' },
              { head: 'Time', num: true, cell: (c) => <>{c.duration_ms} ms</> },
            ]}
          />
        </section>
      ) : null}
      <h2>Earlier runs</h2>
      <TableOr
        empty="No run yet."
        emptyClass="hint"
        caption="The last runs"
        rows={history.ok ? history.data.items : []}
        rowKey={(e) => String(e.audit_id)}
        columns={[
          { head: 'When', cell: (e) => when(e.at) },
          { head: 'Who', cell: (e) => e.username },
          {
            head: 'Result',
            cell: (e) =>
              e.result === 'passed' ? <Badge tone="ok">passed</Badge> : <Badge tone="bad">failed</Badge>,
          },
          {
            head: 'Details',
            cell: (e) => <Link href={`/o/${operator}/wallet?run=${e.audit_id}`}>Show</Link>,
          },
        ]}
      />
    </>
  );
}
