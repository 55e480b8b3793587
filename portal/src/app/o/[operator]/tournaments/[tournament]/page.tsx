import type { Metadata } from 'next';
import Link from 'next/link';
import { ActionOutcome, ConfirmCancel } from '../../../../../components/confirm';
import { DataTable, TableOr } from '../../../../../components/table';
import { Facts, Problem } from '../../../../../components/ui';
import { load, loadMe, type OperatorPageProps, operatorParam, seg } from '../../../../../lib/api';
import { money, when } from '../../../../../lib/format';
import type { AuditEntry, BoardPlayer, StaffTournamentDetail } from '../../../../../lib/types';
import { PromoStatus, SCORING_TEXT } from '../status';

export const metadata: Metadata = { title: 'Tournament' };

const RESULT_TEXT: Record<string, string> = {
  created: 'Tournament created',
  unchanged: 'Already defined so: nothing changed',
  cancelled: 'Tournament cancelled',
  already_cancelled: 'Already cancelled',
};

/** A score in words: a multiplier ("12.5×") or a total win in the leaderboard's currency. */
function score(value: string, scoring: string, currency: string): string {
  if (scoring === 'total_win') return money(value.split('.')[0] ?? '0', currency);
  const n = value.includes('.') ? value.replace(/\.?0+$/, '') : value;
  return `${n}×`;
}

/** A player on the board: the operator's own in full, another operator's by its display id. */
function Who({ p }: { p: BoardPlayer }) {
  return p.own ? (
    <span className="mono">{p.player_id}</span>
  ) : (
    <span>
      <span className="mono">{p.display_id}</span> <span className="hint">(another operator)</span>
    </span>
  );
}

export default async function TournamentPage({
  params,
  searchParams,
}: OperatorPageProps<{ tournament: string }>) {
  const operator = await operatorParam(params);
  const { tournament } = await params;
  const sp = await searchParams;
  const actionId = sp.action && /^\d{1,18}$/.test(sp.action) ? sp.action : undefined;
  const [me, res, action] = await Promise.all([
    loadMe(),
    load<StaffTournamentDetail>(`/operators/${operator}/tournaments/${seg(tournament)}`),
    actionId ? load<AuditEntry>(`/operators/${operator}/audit-log/${actionId}`) : undefined,
  ]);
  if (!res.ok) return <Problem {...res} />;
  const t = res.data;
  const base = `/o/${operator}/tournaments/${encodeURIComponent(t.tournament_id)}`;
  const done =
    action?.ok && action.data.action.startsWith('tournament.') && action.data.target === t.tournament_id
      ? action.data
      : undefined;
  const canCancel =
    me.provider_role === 'admin' &&
    (t.status === 'scheduled' || t.status === 'running') &&
    Date.parse(t.ends_at) > Date.now();
  const confirming = sp.confirm === 'cancel' && canCancel;
  return (
    <>
      <p>
        <Link href={`/o/${operator}/tournaments`}>← Tournaments</Link>
      </p>
      <h1>
        {t.name} <span className="mono hint">{t.tournament_id}</span>
      </h1>
      <ActionOutcome
        done={done}
        error={sp.error}
        texts={RESULT_TEXT}
        okResults={['created', 'cancelled']}
        testId="action-result"
      />
      <Facts
        items={[
          ['Status', <PromoStatus key="s" status={t.status} />],
          ['Scoring', SCORING_TEXT[t.scoring] ?? t.scoring],
          ['Starts', when(t.starts_at)],
          ['Ends', when(t.ends_at)],
          [
            'Titles',
            <span key="t" className="mono">
              {t.titles.join(', ')}
            </span>,
          ],
          ['Leaderboard', t.frozen ? `frozen at ${when(t.frozen_at)}` : 'live'],
          ...(t.cancelled_at ? ([['Cancelled', when(t.cancelled_at)]] as [string, string][]) : []),
          ...(t.paid_at ? ([['Every prize paid', when(t.paid_at)]] as [string, string][]) : []),
        ]}
      />

      {t.leaderboards.map((b) => (
        <section
          key={b.currency}
          aria-labelledby={`board-${b.currency}`}
          data-testid="board"
          data-currency={b.currency}
        >
          <h2 id={`board-${b.currency}`}>
            {t.frozen ? 'Final leaderboard' : 'Live leaderboard'}, {b.currency}
          </h2>
          <p className="hint">
            Rounds of at least {money(b.min_stake_minor, b.currency)} count. Your players are shown by their
            id; other operators' players by a pseudonym.
          </p>
          <TableOr
            empty="No round has counted yet."
            emptyClass="hint"
            emptyTestId="board-empty"
            testId="board-table"
            caption={
              <>
                {t.frozen ? 'Frozen standings' : 'Live standings'} in {b.currency}, top {b.items.length}
              </>
            }
            rows={b.items}
            rowKey={(r) => String(r.rank)}
            rowAttrs={(r) => ({
              'data-rank': String(r.rank),
              'data-own': String(r.own),
              'data-player': r.display_id,
            })}
            columns={[
              { head: 'Rank', num: true, cell: (r) => r.rank },
              { head: 'Player', cell: (r) => <Who p={r} /> },
              { head: 'Score', num: true, cell: (r) => score(r.score, t.scoring, b.currency) },
              {
                head: 'Prize',
                num: true,
                cell: (r) => (r.prize_minor ? money(r.prize_minor, b.currency) : '—'),
              },
            ]}
          />

          <h3>Prizes, {b.currency}</h3>
          <DataTable
            testId="prizes-table"
            caption={
              <>
                Prizes in {b.currency}
                {t.frozen ? ' and their payouts' : ' (paid once the tournament ends)'}
              </>
            }
            rows={b.prizes}
            rowKey={(p) => String(p.rank)}
            rowAttrs={(p) => ({
              'data-rank': String(p.rank),
              'data-payout-status': p.payout?.status ?? 'none',
            })}
            columns={[
              { head: 'Rank', num: true, cell: (p) => p.rank },
              { head: 'Prize', num: true, cell: (p) => money(p.amount_minor, b.currency) },
              { head: 'Winner', cell: (p) => (p.winner ? <Who p={p.winner} /> : t.frozen ? 'not won' : '—') },
              {
                head: 'Payout',
                cell: (p) =>
                  p.payout ? (
                    <>
                      <PromoStatus status={p.payout.status} /> {money(p.payout.amount_minor, b.currency)}
                      {p.payout.payout_id ? (
                        <>
                          <br />
                          <span className="mono" data-testid="payout-id">
                            {p.payout.payout_id}
                          </span>
                        </>
                      ) : null}
                      {p.payout.paid_at ? <span className="hint"> paid {when(p.payout.paid_at)}</span> : null}
                    </>
                  ) : t.frozen ? (
                    'none'
                  ) : (
                    '—'
                  ),
              },
            ]}
          />
        </section>
      ))}

      {canCancel ? (
        <section aria-labelledby="cancel-h" id="cancel" data-testid="cancel-section">
          <h2 id="cancel-h">Cancel the tournament</h2>
          <p className="hint">
            Provider admins only. A tournament cancelled before its end pays nothing, for every operator
            taking part. The cancel is written to the audit log.
          </p>
          <ConfirmCancel
            base={base}
            confirming={confirming}
            question={
              <>
                <strong>Cancel {t.name}?</strong> No prize will be paid. This cannot be undone.
              </>
            }
            confirm="Yes, cancel the tournament"
            start="Cancel this tournament…"
          />
        </section>
      ) : null}
    </>
  );
}
