import type { Metadata } from 'next';
import { PromoTitle, PromoWindow } from '../../../../components/promotions';
import { TableOr } from '../../../../components/table';
import { Problem } from '../../../../components/ui';
import { load, loadMe, type OperatorPageProps, operatorParam } from '../../../../lib/api';
import { money } from '../../../../lib/format';
import type { Catalog, OperatorInfo, StaffTournament } from '../../../../lib/types';
import { PromoStatus, SCORING_TEXT } from './status';

export const metadata: Metadata = { title: 'Tournaments' };

/** A datetime-local value (UTC) an hour from now, rounded to the minute, and a week after it. */
function defaultWindow(): [string, string] {
  const start = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 3_600_000);
  const end = new Date(start.getTime() + 7 * 86_400_000);
  return [start.toISOString().slice(0, 16), end.toISOString().slice(0, 16)];
}

export default async function TournamentsPage({ params, searchParams }: OperatorPageProps) {
  const operator = await operatorParam(params);
  const sp = await searchParams;
  const me = await loadMe();
  const creator = me.provider_role === 'admin';
  const [info, list, catalog] = await Promise.all([
    load<OperatorInfo>(`/operators/${operator}`),
    load<{ items: StaffTournament[] }>(`/operators/${operator}/tournaments`),
    creator ? load<Catalog>(`/operators/${operator}/catalog`) : undefined,
  ]);
  if (!info.ok) return <Problem {...info} />;
  const base = `/o/${operator}/tournaments`;
  const slots = catalog?.ok
    ? catalog.data.items.filter((g) => g.provider_id === 'prov_a' || g.provider_id === 'prov_b')
    : [];
  const [start, end] = defaultWindow();
  return (
    <>
      <h1>Tournaments</h1>
      <p className="lede">
        The tournaments your players take part in. A settled paid round of one of a tournament's titles, in
        its window and at least its minimum stake, counts toward the player's score. At the end the
        leaderboard is frozen and each prize is paid to the player's wallet. Open one for its leaderboard.
      </p>
      {!list.ok ? (
        <Problem {...list} />
      ) : (
        <TableOr
          empty="Your players take part in no tournament."
          emptyTestId="no-tournaments"
          testId="tournaments-table"
          caption="Tournaments, the latest start first"
          rows={list.data.items}
          rowKey={(t) => t.tournament_id}
          rowAttrs={(t) => ({ 'data-tournament': t.tournament_id, 'data-status': t.status })}
          columns={[
            {
              head: 'Tournament',
              cell: (t) => (
                <PromoTitle
                  href={`${base}/${encodeURIComponent(t.tournament_id)}`}
                  name={t.name}
                  id={t.tournament_id}
                />
              ),
            },
            { head: 'Status', cell: (t) => <PromoStatus status={t.status} /> },
            { head: 'Window (UTC)', cell: (t) => <PromoWindow starts={t.starts_at} ends={t.ends_at} /> },
            { head: 'Scoring', cell: (t) => SCORING_TEXT[t.scoring] ?? t.scoring },
            { head: 'Titles', tdClass: 'mono', cell: (t) => t.titles.join(', ') },
            {
              head: 'Prizes',
              cell: (t) =>
                t.currencies.map((c) => (
                  <div key={c.currency}>
                    {c.prizes.length} prize{c.prizes.length === 1 ? '' : 's'}, first{' '}
                    {money(c.prizes[0]?.amount_minor ?? 0, c.currency)}
                  </div>
                )),
            },
          ]}
        />
      )}

      {sp.error ? (
        <div className="notice bad" role="alert" data-testid="create-error">
          The tournament was not created: {sp.error}
        </div>
      ) : null}
      {creator ? (
        <section aria-labelledby="create-h" id="create" data-testid="create-section">
          <h2 id="create-h">Create a tournament</h2>
          <p className="hint">
            Provider admins only. The tournament is defined as the admin API defines it (a definition never
            changes afterwards), {info.data.name} takes part in it, and its workflow starts; the creation is
            written to the audit log. Times are UTC.
          </p>
          <form method="post" action={`${base}/create`} className="filters" data-testid="create-form">
            <div className="field">
              <label htmlFor="t-id">Id (lower-case letters, digits, _ and -)</label>
              <input
                id="t-id"
                name="tournament_id"
                required
                maxLength={63}
                pattern="[a-z0-9][a-z0-9_\-]{0,62}"
                autoComplete="off"
              />
            </div>
            <div className="field">
              <label htmlFor="t-name">Name</label>
              <input id="t-name" name="name" required maxLength={200} autoComplete="off" />
            </div>
            <div className="field">
              <label htmlFor="t-scoring">Scoring</label>
              <select id="t-scoring" name="scoring" defaultValue="total_win">
                <option value="total_win">Total win</option>
                <option value="max_multiplier">Best single-round multiplier</option>
              </select>
            </div>
            <div className="field">
              <label htmlFor="t-starts">Starts (UTC)</label>
              <input id="t-starts" name="starts_at" type="datetime-local" required defaultValue={start} />
            </div>
            <div className="field">
              <label htmlFor="t-ends">Ends (UTC)</label>
              <input id="t-ends" name="ends_at" type="datetime-local" required defaultValue={end} />
            </div>
            <fieldset className="field">
              <legend>Titles</legend>
              {slots.length === 0 ? (
                <p className="hint">No slot title is assigned to this operator.</p>
              ) : (
                slots.map((g) => (
                  <label key={g.symbol} className="check">
                    <input type="checkbox" name="titles" value={g.symbol} /> {g.title}{' '}
                    <span className="mono hint">{g.symbol}</span>
                  </label>
                ))
              )}
            </fieldset>
            <div className="field">
              <label htmlFor="t-currency">Currency</label>
              <select id="t-currency" name="currency" defaultValue={info.data.default_currency}>
                {info.data.allowed_currencies.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="t-min">Minimum stake of a round that counts</label>
              <input
                id="t-min"
                name="min_stake"
                required
                inputMode="decimal"
                defaultValue="1.00"
                autoComplete="off"
              />
            </div>
            <div className="field">
              <label htmlFor="t-prizes">
                Prizes by rank, separated by a comma and a space (e.g. 100.00, 50.00, 25.00)
              </label>
              <input id="t-prizes" name="prizes" required inputMode="decimal" autoComplete="off" />
            </div>
            <button type="submit">Create the tournament</button>
          </form>
        </section>
      ) : null}
    </>
  );
}
