import type { Metadata } from 'next';
import { RoundLink } from '../../../../components/rounds';
import { TableOr } from '../../../../components/table';
import { Problem, StatusBadge } from '../../../../components/ui';
import { load, type OperatorPageProps, operatorParam, qs } from '../../../../lib/api';
import { money, when } from '../../../../lib/format';
import type { AuditEntry, OperatorInfo, OperatorRound, Page } from '../../../../lib/types';

export const metadata: Metadata = { title: 'Stuck settlements' };

const RESULT_TEXT: Record<string, string> = {
  cancelled: 'Cancelled',
  accepted: 'Cancel accepted',
  refused: 'Cancel refused',
  ended: 'Round ended first',
};

export default async function StuckPage({ params, searchParams }: OperatorPageProps) {
  const operator = await operatorParam(params);
  const sp = await searchParams;
  const actionId = sp.action && /^\d{1,18}$/.test(sp.action) ? sp.action : undefined;
  const [info, stuck, recent, action] = await Promise.all([
    load<OperatorInfo>(`/operators/${operator}`),
    load<Page<OperatorRound>>(`/operators/${operator}/stuck${qs({ limit: 100 })}`),
    load<{ items: AuditEntry[] }>(
      `/operators/${operator}/audit-log${qs({ action: 'round.cancel', limit: 10 })}`,
    ),
    actionId ? load<AuditEntry>(`/operators/${operator}/audit-log/${actionId}`) : undefined,
  ]);
  if (!info.ok) return <Problem {...info} />;
  if (!stuck.ok) return <Problem {...stuck} />;
  const admin = info.data.role === 'admin';
  const done = action?.ok ? action.data : undefined;
  return (
    <>
      <h1>Stuck settlements</h1>
      <p className="lede">
        Rounds whose wallet call keeps failing. The settlement retries with the same transaction id until the
        wallet answers; staff may cancel a round whose win is not being credited. The cancel goes through the
        round's settlement workflow and is applied once the debit's outcome is known; every attempt is in the
        audit log.
      </p>
      {done ? (
        <div
          className={`notice ${done.result === 'refused' ? 'bad' : done.result === 'cancelled' ? 'ok' : 'warn'}`}
          role="status"
          data-testid="cancel-result"
          data-result={done.result}
        >
          <strong>{RESULT_TEXT[done.result] ?? done.result}</strong> for round{' '}
          <span className="mono">{done.target}</span>: {String(done.detail.message ?? '')}
        </div>
      ) : null}
      {sp.error ? (
        <div className="notice bad" role="alert">
          {sp.error === 'round' ? 'Choose a round.' : sp.error}
        </div>
      ) : null}
      {stuck.data.items.length === 0 ? (
        <p className="notice ok" data-testid="no-stuck">
          No stuck settlement.
        </p>
      ) : (
        <ul className="cards" data-testid="stuck-list">
          {stuck.data.items.map((r) => (
            <li key={r.round_id} id={`round-${r.round_id}`} className="card" data-round={r.round_id}>
              <div className="wide">
                <h2>
                  <RoundLink operator={operator} roundId={r.round_id} />
                </h2>
                <p>
                  <StatusBadge status={r.status} /> <StatusBadge status="stuck" /> since {when(r.created_at)}
                </p>
                <p className="hint">
                  Player <span className="mono">{r.player_id}</span> · {r.game_symbol} · bet{' '}
                  {money(r.bet_minor, r.currency)}
                </p>
                {admin ? (
                  <form method="post" action={`/o/${operator}/stuck/cancel`} className="filters">
                    <input type="hidden" name="round_id" value={r.round_id} />
                    <div className="field">
                      <label htmlFor={`reason-${r.round_id}`}>Reason (kept in the audit log)</label>
                      <input
                        id={`reason-${r.round_id}`}
                        name="reason"
                        required
                        minLength={3}
                        maxLength={500}
                      />
                    </div>
                    <button type="submit" className="danger">
                      Cancel this round
                    </button>
                  </form>
                ) : (
                  <p className="hint">Cancelling needs the admin role.</p>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
      <h2>Recent cancel actions</h2>
      <TableOr
        empty="None yet."
        emptyClass="hint"
        testId="cancel-log"
        caption="Who cancelled what, when, and the result"
        rows={recent.ok ? recent.data.items : []}
        rowKey={(e) => String(e.audit_id)}
        columns={[
          { head: 'When', cell: (e) => when(e.at) },
          { head: 'Who', cell: (e) => e.username },
          { head: 'Round', tdClass: 'mono', cell: (e) => e.target },
          { head: 'Reason', cell: (e) => String(e.detail.reason ?? '') },
          { head: 'Result', cell: (e) => <StatusBadge status={e.result} /> },
        ]}
      />
    </>
  );
}
