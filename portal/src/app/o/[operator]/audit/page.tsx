import type { Metadata } from 'next';
import { FilterForm, SelectFilter } from '../../../../components/filters';
import { TableOr } from '../../../../components/table';
import { Problem, StatusBadge } from '../../../../components/ui';
import { load, type OperatorPageProps, operatorParam, qs } from '../../../../lib/api';
import { when } from '../../../../lib/format';
import type { AuditList } from '../../../../lib/types';

export const metadata: Metadata = { title: 'Audit log' };

const ACTIONS: [string, string][] = [
  ['round.cancel', 'Round cancels'],
  ['wallet.diagnostics', 'Wallet diagnostics'],
];

export default async function AuditPage({ params, searchParams }: OperatorPageProps) {
  const operator = await operatorParam(params);
  const sp = await searchParams;
  const action = ACTIONS.some(([a]) => a === sp.action) ? sp.action : undefined;
  const log = await load<AuditList>(`/operators/${operator}/audit-log${qs({ action, limit: 100 })}`);
  if (!log.ok) return <Problem {...log} />;
  return (
    <>
      <h1>Audit log</h1>
      <p className="lede">
        What staff did for this operator: who, when, what and the result. Entries are never changed.
      </p>
      <FilterForm label="Filter the audit log" submit="Filter">
        <SelectFilter name="action" label="Action" value={action} options={ACTIONS} any="All actions" />
      </FilterForm>
      <TableOr
        empty="Nothing recorded yet."
        emptyClass="hint"
        testId="audit-table"
        caption="Newest first"
        rows={log.data.items}
        rowKey={(e) => e.audit_id}
        columns={[
          { head: 'When', cell: (e) => when(e.at) },
          { head: 'Who', cell: (e) => e.username },
          { head: 'Action', cell: (e) => e.action },
          { head: 'About', tdClass: 'mono', cell: (e) => e.target ?? '—' },
          {
            head: 'Result',
            cell: (e) => (
              <>
                <StatusBadge status={e.result} />
                {typeof e.detail.reason === 'string' ? <div className="hint">{e.detail.reason}</div> : null}
              </>
            ),
          },
          { head: 'From', tdClass: 'mono', cell: (e) => e.client_ip ?? '—' },
        ]}
      />
    </>
  );
}
