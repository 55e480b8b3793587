import type { Metadata } from 'next';
import Link from 'next/link';
import { ActionOutcome, ConfirmCancel } from '../../../../../components/confirm';
import { PagedTable } from '../../../../../components/pager';
import { RoundLink } from '../../../../../components/rounds';
import { TableOr } from '../../../../../components/table';
import { Facts, Problem, StatusBadge } from '../../../../../components/ui';
import { load, type OperatorPageProps, operatorParam, qs, seg } from '../../../../../lib/api';
import { money, when } from '../../../../../lib/format';
import type { AuditEntry, FreeRoundCampaignDetail, OperatorInfo } from '../../../../../lib/types';
import { CampaignStatus } from '../status';

export const metadata: Metadata = { title: 'Free-round campaign' };

const RESULT_TEXT: Record<string, string> = {
  cancelled: 'Campaign cancelled',
  already_cancelled: 'Already cancelled',
};

export default async function CampaignPage({
  params,
  searchParams,
}: OperatorPageProps<{ campaign: string }>) {
  const operator = await operatorParam(params);
  const { campaign } = await params;
  const sp = await searchParams;
  const actionId = sp.action && /^\d{1,18}$/.test(sp.action) ? sp.action : undefined;
  const [info, res, action] = await Promise.all([
    load<OperatorInfo>(`/operators/${operator}`),
    load<FreeRoundCampaignDetail>(
      `/operators/${operator}/free-rounds/${seg(campaign)}${qs({ cursor: sp.cursor, players_cursor: sp.players })}`,
    ),
    actionId ? load<AuditEntry>(`/operators/${operator}/audit-log/${actionId}`) : undefined,
  ]);
  if (!info.ok) return <Problem {...info} />;
  if (!res.ok) return <Problem {...res} />;
  const c = res.data;
  const admin = info.data.role === 'admin';
  const base = `/o/${operator}/free-rounds/${encodeURIComponent(c.campaign_id)}`;
  const done =
    action?.ok && action.data.action === 'free_rounds.cancel' && action.data.target === c.campaign_id
      ? action.data
      : undefined;
  const confirming = sp.confirm === 'cancel' && admin && c.status !== 'cancelled';
  const voidRounds = c.status === 'cancelled' || c.status === 'expired';
  return (
    <>
      <p>
        <Link href={`/o/${operator}/free-rounds`}>← Free rounds</Link>
      </p>
      <h1>
        Campaign <span className="mono">{c.campaign_id}</span>
      </h1>
      <ActionOutcome
        done={done}
        error={sp.error}
        texts={RESULT_TEXT}
        okResults={['cancelled']}
        testId="cancel-result"
      />
      <Facts
        items={[
          ['Status', <CampaignStatus key="s" status={c.status} />],
          [
            'Games',
            <span key="g" className="mono">
              {c.symbols.join(', ')}
            </span>,
          ],
          ['Stake per round', money(c.bet_minor, c.currency)],
          ['Rounds per player', String(c.rounds)],
          ['Valid from', when(c.valid_from)],
          ['Expires', when(c.expires_at)],
          ['Created', when(c.created_at)],
          ['Cancelled', when(c.cancelled_at)],
          ['Players', String(c.players_count)],
          ['Rounds played', String(c.rounds_used)],
          [
            'Rounds remaining',
            `${c.rounds_remaining}${voidRounds && c.rounds_remaining > 0 ? ' (void)' : ''}`,
          ],
          ['Won', money(c.won_minor, c.currency)],
        ]}
      />

      {c.status === 'cancelled' ? null : admin ? (
        <section aria-labelledby="cancel-h" id="cancel" data-testid="cancel-section">
          <h2 id="cancel-h">Cancel the campaign</h2>
          <p className="hint">
            No round of it starts afterwards and the players' unplayed rounds are void; rounds already started
            finish and are credited. The operator sees the same as its own DELETE of the campaign. The cancel
            is written to the audit log.
          </p>
          <ConfirmCancel
            base={base}
            confirming={confirming}
            question={
              <>
                <strong>Cancel campaign {c.campaign_id}?</strong> {c.rounds_remaining} unplayed round
                {c.rounds_remaining === 1 ? '' : 's'} of {c.players_count} player
                {c.players_count === 1 ? '' : 's'} will be void. This cannot be undone.
              </>
            }
            confirm="Yes, cancel the campaign"
            start="Cancel this campaign…"
          />
        </section>
      ) : (
        <p className="hint">Cancelling a campaign needs the admin role.</p>
      )}

      <h2>Players</h2>
      <TableOr
        empty="No player has been granted this campaign's rounds."
        testId="players-table"
        caption="Players of the campaign, by player id"
        rows={c.players}
        rowKey={(p) => p.external_player_id}
        rowAttrs={(p) => ({
          'data-player': p.external_player_id,
          'data-used': String(p.rounds_used),
          'data-remaining': String(p.rounds_remaining),
        })}
        columns={[
          { head: 'Player', tdClass: 'mono', cell: (p) => p.external_player_id },
          {
            head: 'Rounds used',
            num: true,
            cell: (p) => (
              <>
                {p.rounds_used} of {p.rounds_total}
              </>
            ),
          },
          {
            head: 'Remaining',
            num: true,
            cell: (p) => (
              <>
                {p.rounds_remaining}
                {voidRounds && p.rounds_remaining > 0 ? ' (void)' : ''}
              </>
            ),
          },
          { head: 'Won', num: true, cell: (p) => money(p.won_minor, c.currency) },
        ]}
      />
      {c.players_next_cursor || sp.players ? (
        // The players come 100 a page (by player id); the rounds' page stays where it is.
        <nav className="pager" aria-label="Player pages" data-testid="players-pager">
          {sp.players ? <Link href={`${base}${qs({ cursor: sp.cursor })}`}>First players</Link> : null}
          {c.players_next_cursor ? (
            <Link
              href={`${base}${qs({ cursor: sp.cursor, players: c.players_next_cursor })}`}
              rel="next"
              data-testid="players-next-page"
            >
              Next players
            </Link>
          ) : (
            <span className="hint">Last players</span>
          )}
        </nav>
      ) : null}

      <h2>Rounds</h2>
      {c.rounds_in_flight > 0 ? (
        <p className="notice warn" data-testid="rounds-in-flight">
          {c.rounds_in_flight} round{c.rounds_in_flight === 1 ? ' is' : 's are'} still settling.
        </p>
      ) : null}
      <PagedTable
        empty={<>No round of this campaign has been played{sp.cursor ? ' on this page' : ''}.</>}
        emptyClass="hint"
        emptyTestId="no-rounds"
        testId="rounds-table"
        caption="Rounds of the campaign, newest first"
        rows={c.rounds_page.items}
        rowKey={(r) => r.round_id}
        rowAttrs={(r) => ({ 'data-round': r.round_id, 'data-status': r.status })}
        columns={[
          { head: 'Time', cell: (r) => when(r.created_at) },
          { head: 'Player', tdClass: 'mono', cell: (r) => r.player_id },
          { head: 'Round', cell: (r) => <RoundLink operator={operator} roundId={r.round_id} /> },
          { head: 'Game', tdClass: 'mono', cell: (r) => r.game_symbol },
          {
            head: 'Status',
            cell: (r) => (
              <>
                <StatusBadge status={r.status} />
                {r.stuck ? (
                  <>
                    {' '}
                    <StatusBadge status="stuck" />
                  </>
                ) : null}
              </>
            ),
          },
          { head: 'Win', num: true, cell: (r) => money(r.win_minor, r.currency) },
        ]}
        pager={{
          label: 'Round',
          base,
          query: { players: sp.players },
          next: c.rounds_page.next_cursor,
          current: sp.cursor,
        }}
      />
    </>
  );
}
