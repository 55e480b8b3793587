import type { Metadata } from 'next';
import Link from 'next/link';
import { DataTable } from '../../../../../components/table';
import { Facts, Problem, StatusBadge } from '../../../../../components/ui';
import { load, type OperatorPageProps, operatorParam, seg } from '../../../../../lib/api';
import { Legend, PALETTE, type Span, StepChart, TimelineChart } from '../../../../../lib/charts';
import { money, offset, when } from '../../../../../lib/format';
import type { OperatorInfo, RoundDetail, StageEntry } from '../../../../../lib/types';

export const metadata: Metadata = { title: 'Round' };

const TYPE_COLOR: Record<string, string> = {
  debit: PALETTE[0]!,
  credit: PALETTE[2]!,
  cancel: PALETTE[3]!,
  rollback: PALETTE[1]!,
  balance: '#57606a',
};
const FINAL = new Set(['completed', 'rejected', 'cancelled', 'rolled_back']);

function Json({ value }: { value: Record<string, unknown> }) {
  const keys = Object.keys(value);
  if (keys.length === 0) return <span className="hint">none</span>;
  return <pre>{JSON.stringify(value, null, 2)}</pre>;
}

function StageReplay({ stages, current, base }: { stages: StageEntry[]; current: number; base: string }) {
  const stage = stages.find((s) => s.seq === current) ?? stages[stages.length - 1]!;
  const i = stages.indexOf(stage);
  const prev = stages[i - 1];
  const next = stages[i + 1];
  return (
    <section aria-labelledby="stages-h" data-testid="stage-replay">
      <h2 id="stages-h">Stages, replayed one by one</h2>
      <p className="hint">
        Stage {i + 1} of {stages.length}. Choose a stage, or step with Previous and Next.
      </p>
      <ol className="stages" aria-label="Stages">
        {stages.map((s) => (
          <li key={s.seq}>
            <Link
              href={`${base}?stage=${s.seq}#stages-h`}
              aria-current={s.seq === stage.seq ? 'step' : undefined}
              className={s.seq > stage.seq ? 'future' : undefined}
            >
              {s.seq}: {s.action}
            </Link>
          </li>
        ))}
      </ol>
      <div className="pager">
        {prev ? (
          <Link
            className="button secondary"
            href={`${base}?stage=${prev.seq}#stages-h`}
            data-testid="stage-prev"
          >
            ← Previous
          </Link>
        ) : null}
        {next ? (
          <Link
            className="button secondary"
            href={`${base}?stage=${next.seq}#stages-h`}
            data-testid="stage-next"
          >
            Next →
          </Link>
        ) : null}
      </div>
      <div data-testid="stage-current" data-seq={stage.seq}>
        <Facts
          items={[
            ['Stage', String(stage.seq)],
            ['Action', stage.action],
            ['Multiplier after it', stage.multiplier ? `${stage.multiplier}×` : '—'],
            ['At', when(stage.created_at)],
          ]}
        />
        <div className="grid2">
          <div>
            <h3>Inputs</h3>
            <Json value={stage.inputs} />
          </div>
          <div>
            <h3>Outcome</h3>
            <Json value={stage.outcome} />
          </div>
        </div>
      </div>
      {stages.some((s) => s.multiplier !== null) ? (
        <figure>
          <figcaption>Multiplier up to stage {stage.seq}</figcaption>
          <StepChart
            id="multiplier"
            title={`Running multiplier up to stage ${stage.seq}`}
            description="The multiplier after each stage; later stages are not drawn until replayed."
            points={stages.map((s) => ({
              seq: s.seq,
              value: s.multiplier === null ? null : Number(s.multiplier),
            }))}
            current={stage.seq}
          />
        </figure>
      ) : null}
    </section>
  );
}

export default async function RoundPage({ params, searchParams }: OperatorPageProps<{ round: string }>) {
  const operator = await operatorParam(params);
  const { round } = await params;
  const sp = await searchParams;
  const [info, res] = await Promise.all([
    load<OperatorInfo>(`/operators/${operator}`),
    load<RoundDetail>(`/operators/${operator}/rounds/${seg(round)}`),
  ]);
  if (!res.ok) return <Problem {...res} />;
  const r = res.data;
  const base = `/o/${operator}/rounds/${encodeURIComponent(r.round_id)}`;
  const admin = info.ok && info.data.role === 'admin';
  const t0 = new Date(r.created_at).getTime();
  const spans: Span[] = r.timeline.map((t) => ({
    id: t.transaction_id,
    label: t.transaction_type,
    start: new Date(t.created_at).getTime() - t0,
    end: t.completed_at ? new Date(t.completed_at).getTime() - t0 : null,
    color: TYPE_COLOR[t.transaction_type] ?? PALETTE[4]!,
    note: `${t.status}, ${t.attempts} attempt${t.attempts === 1 ? '' : 's'}`,
  }));
  const lastStage = r.stages[r.stages.length - 1]?.seq ?? 0;
  const wanted = Number(sp.stage);
  const current = Number.isInteger(wanted) && r.stages.some((s) => s.seq === wanted) ? wanted : lastStage;
  return (
    <>
      <p>
        <Link href={`/o/${operator}/rounds`}>← Rounds</Link> ·{' '}
        <Link href={`/o/${operator}/sessions/${encodeURIComponent(r.session_id)}`}>its session</Link>
      </p>
      <h1>
        Round <span className="mono">{r.round_id}</span>
      </h1>
      <p>
        {/* Issue 26: the round's stable, signed replay page on the game origin (docs/portal.md). */}
        <a
          className="button secondary"
          href={r.round_details_url}
          target="_blank"
          rel="noopener noreferrer"
          data-testid="replay-link"
        >
          Replay
        </a>{' '}
        <span className="hint">
          the round as the player saw it (opens the game origin). Give a player the ten-minute link of the
          audit API instead.
        </span>
      </p>
      <Facts
        items={[
          [
            'Status',
            <span key="s">
              <StatusBadge status={r.status} />
              {r.rejection_code ? (
                <>
                  {' '}
                  the wallet refused the debit: <span className="mono">{r.rejection_code}</span>
                </>
              ) : null}
            </span>,
          ],
          ['Stuck', r.stuck ? <StatusBadge key="st" status="stuck" /> : 'no'],
          ['Game', `${r.game_title ?? r.game_symbol} (${r.game_symbol})`],
          ['Provider', r.provider_id],
          [
            'Player',
            <span key="p" className="mono">
              {r.player_id}
            </span>,
          ],
          ['Bet', money(r.bet_minor, r.currency)],
          ['Win', money(r.win_minor, r.currency)],
          ['Stored RTP of the title', r.stored_rtp ? `${r.stored_rtp}%` : '—'],
          ['Created', when(r.created_at)],
          ['Settled', when(r.settled_at)],
        ]}
      />
      {r.stuck && !FINAL.has(r.status) ? (
        <div className="notice warn">
          This round's settlement is stuck: a wallet call keeps failing and is retried with the same
          transaction id.{' '}
          {admin ? (
            <Link href={`/o/${operator}/stuck#round-${r.round_id}`}>Cancel it from Stuck settlements.</Link>
          ) : null}
        </div>
      ) : null}
      <section aria-labelledby="timeline-h">
        <h2 id="timeline-h">Wallet transactions</h2>
        {r.timeline.length === 0 ? (
          <p className="notice warn">No wallet call was journalled for this round.</p>
        ) : (
          <>
            <figure data-testid="timeline">
              <figcaption>Timeline from the round's creation</figcaption>
              <TimelineChart
                id="tl"
                title="Wallet calls of this round on a timeline"
                description="Each bar runs from when the call was journalled to when its outcome was recorded; a dashed bar is still pending."
                spans={spans}
              />
              <Legend
                items={[...new Set(r.timeline.map((t) => t.transaction_type))].map((t) => ({
                  name: t,
                  color: TYPE_COLOR[t] ?? PALETTE[4]!,
                }))}
              />
            </figure>
            <DataTable
              testId="transactions-table"
              caption="Transactions in the order they were journalled"
              rows={r.timeline}
              rowKey={(t) => t.transaction_id}
              rowAttrs={(t) => ({ 'data-type': t.transaction_type })}
              columns={[
                { head: 'When', cell: (t) => offset(r.created_at, t.created_at) || '+0 ms' },
                { head: 'Type', cell: (t) => t.transaction_type },
                { head: 'Transaction id', tdClass: 'mono', cell: (t) => t.transaction_id },
                { head: 'Amount', num: true, cell: (t) => money(t.amount_minor, r.currency) },
                { head: 'Status', cell: (t) => <StatusBadge status={t.status} /> },
                { head: 'Attempts', num: true, cell: (t) => t.attempts },
                {
                  head: 'Wallet answer',
                  cell: (t) => (
                    <>
                      {t.http_status ? `HTTP ${t.http_status}` : '—'}
                      {t.error_code ? ` ${t.error_code}` : ''}
                      {t.wallet_balance ? `, balance ${t.wallet_balance}` : ''}
                      {t.original_transaction_id ? (
                        <div className="hint">
                          reverses <span className="mono">{t.original_transaction_id}</span>
                        </div>
                      ) : null}
                    </>
                  ),
                },
                {
                  head: 'Completed',
                  cell: (t) => (t.completed_at ? offset(r.created_at, t.completed_at) : 'pending'),
                },
              ]}
            />
          </>
        )}
      </section>
      {r.stages.length > 0 ? <StageReplay stages={r.stages} current={current} base={base} /> : null}
    </>
  );
}
