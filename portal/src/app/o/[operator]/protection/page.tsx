import type { Metadata } from 'next';
import { RoundLink, SessionLink } from '../../../../components/rounds';
import { DataTable, TableOr } from '../../../../components/table';
import { Badge, Problem } from '../../../../components/ui';
import { load, operatorParam } from '../../../../lib/api';
import { money, when } from '../../../../lib/format';
import type { OperatorInfo, ProtectionView } from '../../../../lib/types';

export const metadata: Metadata = { title: 'Protection' };

function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 3600)}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

export default async function ProtectionPage({ params }: { params: Promise<{ operator: string }> }) {
  const operator = await operatorParam(params);
  const [info, view] = await Promise.all([
    load<OperatorInfo>(`/operators/${operator}`),
    load<ProtectionView>(`/operators/${operator}/protection`),
  ]);
  if (!info.ok) return <Problem {...info} />;
  if (!view.ok) return <Problem {...view} />;
  const v = view.data;
  return (
    <>
      <h1>Protection</h1>
      <p className="lede">
        Player protection events: debits your wallet refused with a protection code ({v.codes.join(', ')}),
        sessions whose bets are stopped until you launch the game again, and the reality checks players
        answered.
      </p>

      <h2>Refused debits by code</h2>
      <TableOr
        empty="No debit was refused for player protection."
        emptyClass="notice ok"
        emptyTestId="no-refusals"
        testId="refusals-by-code"
        caption="Refused debits by code"
        captionClass="sr-only"
        rows={v.refusals_by_code}
        rowKey={(c) => c.code}
        rowAttrs={(c) => ({ 'data-code': c.code, 'data-count': String(c.count) })}
        columns={[
          { head: 'Code', cell: (c) => <Badge tone="bad">{c.code}</Badge> },
          { head: 'Refused debits', tdClass: 'num', cell: (c) => c.count },
          { head: 'Last', cell: (c) => when(c.last_at) },
        ]}
      />

      {v.recent_refusals.length > 0 ? (
        <>
          <h2>Recent refusals</h2>
          <DataTable
            testId="recent-refusals"
            caption="Recent refused debits"
            captionClass="sr-only"
            rows={v.recent_refusals}
            rowKey={(r) => r.transaction_id}
            rowAttrs={(r) => ({ 'data-round': r.round_id })}
            columns={[
              { head: 'Time', cell: (r) => when(r.at) },
              { head: 'Code', cell: (r) => r.code },
              { head: 'Player', tdClass: 'mono', cell: (r) => r.player_id },
              { head: 'Session', cell: (r) => <SessionLink operator={operator} sessionId={r.session_id} /> },
              { head: 'Round', cell: (r) => <RoundLink operator={operator} roundId={r.round_id} /> },
              { head: 'Amount', tdClass: 'num', cell: (r) => money(r.amount_minor, r.currency) },
            ]}
          />
        </>
      ) : null}

      <h2>Blocked sessions</h2>
      <TableOr
        empty="No session has its bets stopped."
        emptyClass="notice ok"
        emptyTestId="no-blocked-sessions"
        testId="blocked-sessions"
        caption="Sessions whose bets are stopped until a relaunch"
        captionClass="sr-only"
        rows={v.blocked_sessions}
        rowKey={(s) => s.session_id}
        rowAttrs={(s) => ({ 'data-session': s.session_id })}
        columns={[
          { head: 'Session', cell: (s) => <SessionLink operator={operator} sessionId={s.session_id} /> },
          { head: 'Player', tdClass: 'mono', cell: (s) => s.player_id },
          { head: 'Game', tdClass: 'mono', cell: (s) => s.symbol },
          { head: 'Code', cell: (s) => s.code },
          { head: 'Since', cell: (s) => when(s.since) },
        ]}
      />

      <h2>Reality checks</h2>
      <p data-testid="reality-check-summary">
        Continued: {v.reality_checks.by_action.find((a) => a.action === 'continue')?.count ?? 0}. Left:{' '}
        {v.reality_checks.by_action.find((a) => a.action === 'leave')?.count ?? 0}. Due and not answered now:{' '}
        {v.reality_checks.due_unanswered}.
      </p>
      {v.reality_checks.recent.length > 0 ? (
        <DataTable
          testId="reality-checks"
          caption="Reality checks answered"
          captionClass="sr-only"
          rows={v.reality_checks.recent}
          rowKey={(c) => `${c.session_id}-${c.acknowledged_at}-${c.action}`}
          columns={[
            { head: 'Answered', cell: (c) => when(c.acknowledged_at) },
            { head: 'Answer', cell: (c) => c.action },
            { head: 'Player', tdClass: 'mono', cell: (c) => c.player_id },
            { head: 'Session', cell: (c) => <SessionLink operator={operator} sessionId={c.session_id} /> },
            { head: 'Time played', cell: (c) => duration(c.elapsed_ms) },
            { head: 'Net position', tdClass: 'num', cell: (c) => money(c.net_minor, c.currency) },
          ]}
        />
      ) : null}
    </>
  );
}
