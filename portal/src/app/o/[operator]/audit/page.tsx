import type { Metadata } from 'next';
import { Field, Problem, StatusBadge } from '../../../../components/ui';
import { load, operatorParam, qs } from '../../../../lib/api';
import { when } from '../../../../lib/format';
import type { AuditEntry } from '../../../../lib/types';

export const metadata: Metadata = { title: 'Audit log' };

const ACTIONS: [string, string][] = [
  ['round.cancel', 'Round cancels'],
  ['wallet.diagnostics', 'Wallet diagnostics'],
];

export default async function AuditPage({
  params,
  searchParams,
}: {
  params: Promise<{ operator: string }>;
  searchParams: Promise<Record<string, string | undefined>>;
}) {
  const operator = await operatorParam(params);
  const sp = await searchParams;
  const action = ACTIONS.some(([a]) => a === sp.action) ? sp.action : undefined;
  const log = await load<{ items: AuditEntry[] }>(
    `/operators/${operator}/audit-log${qs({ action, limit: 100 })}`,
  );
  if (!log.ok) return <Problem {...log} />;
  return (
    <>
      <h1>Audit log</h1>
      <p className="lede">
        What staff did for this operator: who, when, what and the result. Entries are never changed.
      </p>
      <form className="filters" method="get" aria-label="Filter the audit log">
        <Field id="action" label="Action">
          <select id="action" name="action" defaultValue={action ?? ''}>
            <option value="">All actions</option>
            {ACTIONS.map(([a, label]) => (
              <option key={a} value={a}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit">Filter</button>
      </form>
      {log.data.items.length === 0 ? (
        <p className="hint">Nothing recorded yet.</p>
      ) : (
        <div className="table-wrap">
          <table data-testid="audit-table">
            <caption>Newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">About</th>
                <th scope="col">Result</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {log.data.items.map((e) => (
                <tr key={e.audit_id}>
                  <td>{when(e.at)}</td>
                  <td>{e.username}</td>
                  <td>{e.action}</td>
                  <td className="mono">{e.target ?? '—'}</td>
                  <td>
                    <StatusBadge status={e.result} />
                    {typeof e.detail.reason === 'string' ? (
                      <div className="hint">{e.detail.reason}</div>
                    ) : null}
                  </td>
                  <td className="mono">{e.client_ip ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
