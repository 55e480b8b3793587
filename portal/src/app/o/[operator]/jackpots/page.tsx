import type { Metadata } from 'next';
import Link from 'next/link';
import { Field, Pager, Problem, StatusBadge } from '../../../../components/ui';
import { load, operatorParam, qs } from '../../../../lib/api';
import { money, when } from '../../../../lib/format';
import type { JackpotsView } from '../../../../lib/types';

export const metadata: Metadata = { title: 'Jackpots' };

const STATUSES = ['pending', 'paid', 'forfeited'] as const;

/** Parts per million as a percentage of the stake: 5000 → "0.5%". */
const ppm = (v: number) => `${(v / 10_000).toString()}%`;

export default async function JackpotsPage({
  params,
  searchParams,
}: {
  params: Promise<{ operator: string }>;
  searchParams: Promise<Record<string, string | undefined>>;
}) {
  const operator = await operatorParam(params);
  const sp = await searchParams;
  const status = STATUSES.find((s) => s === sp.status);
  const res = await load<JackpotsView>(
    `/operators/${operator}/jackpots${qs({ limit: 50, status, cursor: sp.cursor })}`,
  );
  const base = `/o/${operator}/jackpots`;
  return (
    <>
      <h1>Jackpots</h1>
      <p className="lede">
        The progressive jackpots your players' spins feed: your own and the network jackpots you take part in.
        Each level's pool is shown now, in whole units of each currency, with the seed it restarts from and
        how many times it was hit. Below, every hit by one of your players, newest first.
      </p>
      {!res.ok ? (
        <Problem {...res} />
      ) : (
        <>
          {res.data.jackpots.length === 0 ? (
            <p className="notice warn" data-testid="no-jackpots">
              You take part in no jackpot.
            </p>
          ) : (
            res.data.jackpots.map((j) => (
              <section
                key={j.jackpot_id}
                aria-labelledby={`jp-${j.jackpot_id}`}
                data-testid="jackpot"
                data-jackpot={j.jackpot_id}
              >
                <h2 id={`jp-${j.jackpot_id}`}>
                  {j.name} <span className="mono hint">{j.jackpot_id}</span>
                </h2>
                <p>
                  <StatusBadge status={j.status} />{' '}
                  {j.scope === 'network' ? 'Network jackpot' : 'Your own jackpot'} · fed by{' '}
                  <span className="mono">{j.titles.join(', ')}</span>
                </p>
                <div className="table-wrap">
                  <table data-testid="jackpot-pools">
                    <caption>Pools of {j.name} now</caption>
                    <thead>
                      <tr>
                        <th scope="col">Level</th>
                        <th scope="col">Currency</th>
                        <th scope="col" className="num">
                          Pool now
                        </th>
                        <th scope="col" className="num">
                          Seed
                        </th>
                        <th scope="col" className="num">
                          Cap
                        </th>
                        <th scope="col" className="num">
                          Contribution
                        </th>
                        <th scope="col" className="num">
                          A hit every (staked)
                        </th>
                        <th scope="col" className="num">
                          Hits
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {j.levels.flatMap((l) =>
                        l.pools.map((p) => (
                          <tr
                            key={`${l.level}-${p.currency}`}
                            data-level={l.level}
                            data-currency={p.currency}
                            data-amount={p.amount_minor}
                            data-hits={p.hits}
                          >
                            <th scope="row">{l.level}</th>
                            <td>{p.currency}</td>
                            <td className="num">{money(p.amount_minor, p.currency)}</td>
                            <td className="num">{money(p.seed_minor, p.currency)}</td>
                            <td className="num">
                              {p.cap_minor === null ? 'none' : money(p.cap_minor, p.currency)}
                            </td>
                            <td className="num">{ppm(l.contribution_rate_ppm)}</td>
                            <td className="num">{money(p.hit_every_minor, p.currency)}</td>
                            <td className="num">{p.hits}</td>
                          </tr>
                        )),
                      )}
                    </tbody>
                  </table>
                </div>
              </section>
            ))
          )}

          <h2 id="hits">Hits</h2>
          <form method="get" action={base} className="filters" aria-label="Filter the hits">
            <Field id="hit-status" label="Status">
              <select id="hit-status" name="status" defaultValue={status ?? ''}>
                <option value="">any</option>
                {STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </Field>
            <button type="submit">Show</button>
          </form>
          <p className="hint">
            A hit is <strong>pending</strong> until its jackpot credit is paid, <strong>paid</strong> once the
            wallet took it, and <strong>forfeited</strong> when the round's bet never stood (its debit refused
            or rolled back): the amount then goes back to the pool.
          </p>
          {res.data.hits.items.length === 0 ? (
            <p className="hint" data-testid="no-hits">
              No hit{status ? ` with status ${status}` : ''}
              {sp.cursor ? ' on this page' : ' yet'}.
            </p>
          ) : (
            <>
              <div className="table-wrap">
                <table data-testid="hits-table">
                  <caption>Jackpot hits by your players, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">Time</th>
                      <th scope="col">Round</th>
                      <th scope="col">Jackpot</th>
                      <th scope="col">Level</th>
                      <th scope="col">Player</th>
                      <th scope="col" className="num">
                        Amount
                      </th>
                      <th scope="col">Status</th>
                    </tr>
                  </thead>
                  <tbody>
                    {res.data.hits.items.map((h) => (
                      <tr
                        key={h.transaction_id}
                        data-round={h.round_id}
                        data-status={h.status}
                        data-level={h.level}
                        data-amount={String(h.amount_minor)}
                      >
                        <td>{when(h.created_at)}</td>
                        <td>
                          <Link
                            href={`/o/${operator}/rounds/${encodeURIComponent(h.round_id)}`}
                            className="mono"
                          >
                            {h.round_id}
                          </Link>
                        </td>
                        <td className="mono">{h.jackpot_id}</td>
                        <td>{h.level}</td>
                        <td className="mono">{h.player_id}</td>
                        <td className="num">{money(h.amount_minor, h.currency)}</td>
                        <td>
                          <StatusBadge status={h.status} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                label="Hit"
                next={
                  res.data.hits.next_cursor
                    ? `${base}${qs({ status, cursor: res.data.hits.next_cursor })}#hits`
                    : null
                }
                first={sp.cursor ? `${base}${qs({ status })}#hits` : null}
              />
            </>
          )}
        </>
      )}
    </>
  );
}
