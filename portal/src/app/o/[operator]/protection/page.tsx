import type { Metadata } from 'next';
import Link from 'next/link';
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
  const base = `/o/${operator}`;
  return (
    <>
      <h1>Protection</h1>
      <p className="lede">
        Player protection events: debits your wallet refused with a protection code ({v.codes.join(', ')}),
        sessions whose bets are stopped until you launch the game again, and the reality checks players
        answered.
      </p>

      <h2>Refused debits by code</h2>
      {v.refusals_by_code.length === 0 ? (
        <p className="notice ok" data-testid="no-refusals">
          No debit was refused for player protection.
        </p>
      ) : (
        <div className="table-wrap">
          <table data-testid="refusals-by-code">
            <caption className="sr-only">Refused debits by code</caption>
            <thead>
              <tr>
                <th scope="col">Code</th>
                <th scope="col">Refused debits</th>
                <th scope="col">Last</th>
              </tr>
            </thead>
            <tbody>
              {v.refusals_by_code.map((c) => (
                <tr key={c.code} data-code={c.code} data-count={c.count}>
                  <td>
                    <Badge tone="bad">{c.code}</Badge>
                  </td>
                  <td className="num">{c.count}</td>
                  <td>{when(c.last_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {v.recent_refusals.length > 0 ? (
        <>
          <h2>Recent refusals</h2>
          <div className="table-wrap">
            <table data-testid="recent-refusals">
              <caption className="sr-only">Recent refused debits</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Code</th>
                  <th scope="col">Player</th>
                  <th scope="col">Session</th>
                  <th scope="col">Round</th>
                  <th scope="col">Amount</th>
                </tr>
              </thead>
              <tbody>
                {v.recent_refusals.map((r) => (
                  <tr key={r.transaction_id} data-round={r.round_id}>
                    <td>{when(r.at)}</td>
                    <td>{r.code}</td>
                    <td className="mono">{r.player_id}</td>
                    <td>
                      <Link href={`${base}/sessions/${encodeURIComponent(r.session_id)}`} className="mono">
                        {r.session_id}
                      </Link>
                    </td>
                    <td>
                      <Link href={`${base}/rounds/${encodeURIComponent(r.round_id)}`} className="mono">
                        {r.round_id}
                      </Link>
                    </td>
                    <td className="num">{money(r.amount_minor, r.currency)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}

      <h2>Blocked sessions</h2>
      {v.blocked_sessions.length === 0 ? (
        <p className="notice ok" data-testid="no-blocked-sessions">
          No session has its bets stopped.
        </p>
      ) : (
        <div className="table-wrap">
          <table data-testid="blocked-sessions">
            <caption className="sr-only">Sessions whose bets are stopped until a relaunch</caption>
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Player</th>
                <th scope="col">Game</th>
                <th scope="col">Code</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {v.blocked_sessions.map((s) => (
                <tr key={s.session_id} data-session={s.session_id}>
                  <td>
                    <Link href={`${base}/sessions/${encodeURIComponent(s.session_id)}`} className="mono">
                      {s.session_id}
                    </Link>
                  </td>
                  <td className="mono">{s.player_id}</td>
                  <td className="mono">{s.symbol}</td>
                  <td>{s.code}</td>
                  <td>{when(s.since)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <h2>Reality checks</h2>
      <p data-testid="reality-check-summary">
        Continued: {v.reality_checks.by_action.find((a) => a.action === 'continue')?.count ?? 0}. Left:{' '}
        {v.reality_checks.by_action.find((a) => a.action === 'leave')?.count ?? 0}. Due and not answered now:{' '}
        {v.reality_checks.due_unanswered}.
      </p>
      {v.reality_checks.recent.length > 0 ? (
        <div className="table-wrap">
          <table data-testid="reality-checks">
            <caption className="sr-only">Reality checks answered</caption>
            <thead>
              <tr>
                <th scope="col">Answered</th>
                <th scope="col">Answer</th>
                <th scope="col">Player</th>
                <th scope="col">Session</th>
                <th scope="col">Time played</th>
                <th scope="col">Net position</th>
              </tr>
            </thead>
            <tbody>
              {v.reality_checks.recent.map((c) => (
                <tr key={`${c.session_id}-${c.acknowledged_at}-${c.action}`}>
                  <td>{when(c.acknowledged_at)}</td>
                  <td>{c.action}</td>
                  <td className="mono">{c.player_id}</td>
                  <td>
                    <Link href={`${base}/sessions/${encodeURIComponent(c.session_id)}`} className="mono">
                      {c.session_id}
                    </Link>
                  </td>
                  <td>{duration(c.elapsed_ms)}</td>
                  <td className="num">{money(c.net_minor, c.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}
