import type { Metadata } from 'next';
import { FilterForm, SelectFilter } from '../../../../components/filters';
import { Badge, Problem } from '../../../../components/ui';
import { load, type OperatorPageProps, operatorParam, qs } from '../../../../lib/api';
import type { Catalog } from '../../../../lib/types';

export const metadata: Metadata = { title: 'Catalog readiness' };

const FEATURES: [keyof NonNullable<Catalog['items'][number]['features']>, string][] = [
  ['bonus', 'Bonus'],
  ['collect', 'Collect'],
  ['free_spins', 'Free spins'],
  ['buy_feature', 'Buy feature'],
  ['special_bet', 'Special bet'],
];

export default async function CatalogPage({ params, searchParams }: OperatorPageProps) {
  const operator = await operatorParam(params);
  const sp = await searchParams;
  const family = sp.family || undefined;
  const status = sp.status === 'launchable' || sp.status === 'blocked' ? sp.status : undefined;
  const [filtered, all] = await Promise.all([
    load<Catalog>(`/operators/${operator}/catalog${qs({ family, status })}`),
    family || status ? load<Catalog>(`/operators/${operator}/catalog`) : undefined,
  ]);
  if (!filtered.ok) return <Problem {...filtered} />;
  const whole = all?.ok ? all.data : filtered.data;
  const c = filtered.data;
  return (
    <>
      <h1>Catalog readiness</h1>
      <p className="lede">
        Every title assigned to {operator}: {whole.launchable} launchable, {whole.blocked} blocked.
        Availability is a transport and release check, not live-funds approval.
      </p>
      <FilterForm label="Filter titles" submit="Filter">
        <SelectFilter
          name="family"
          label="Family"
          value={family}
          options={whole.families}
          any="All families"
        />
        <SelectFilter
          name="status"
          label="Status"
          value={status}
          options={[
            ['launchable', 'Launchable'],
            ['blocked', 'Blocked'],
          ]}
          any="Any status"
        />
      </FilterForm>
      <p aria-live="polite" data-testid="catalog-count">
        {c.total} {c.total === 1 ? 'title' : 'titles'} shown
      </p>
      <ul className="cards">
        {c.items.map((g) => {
          const a = g.operator_availability;
          const r = g.release_readiness;
          return (
            <li key={g.symbol} className="card" data-testid="catalog-item" data-symbol={g.symbol}>
              {/* biome-ignore lint/performance/noImgElement: server-proxied artwork; no image optimisation wanted */}
              <img
                src={`/o/${operator}/art/${encodeURIComponent(g.symbol)}`}
                alt={`${g.title} artwork`}
                loading="lazy"
              />
              <div>
                <h2>{g.title}</h2>
                <p className="hint">
                  <code>{g.symbol}</code> · {g.provider} ({g.provider_id}){g.family ? ` · ${g.family}` : ''}
                </p>
                {a?.launch_available ? (
                  <Badge tone="ok" testId="availability">
                    Launchable
                  </Badge>
                ) : (
                  <Badge tone="bad" testId="availability">
                    Blocked
                  </Badge>
                )}
                <dl>
                  <dt>Release</dt>
                  <dd>
                    {r?.accepted ? (
                      <Badge tone="ok">accepted</Badge>
                    ) : (
                      <Badge tone="bad">{r?.status ?? 'blocked'}</Badge>
                    )}{' '}
                    <span className="hint">version {r?.registry_version ?? g.installed_version}</span>
                  </dd>
                  <dt>Stored RTP</dt>
                  <dd>{g.rtp ? `${g.rtp}%` : '—'}</dd>
                  <dt>Mode</dt>
                  <dd>{g.operator_integration?.mode ?? '—'}</dd>
                </dl>
                {g.blocker_text.length ? (
                  <div className="wide">
                    <h3>Why it is blocked</h3>
                    <ul className="plain" data-testid="blockers">
                      {g.blocker_text.map((b) => (
                        <li key={b}>{b}</li>
                      ))}
                    </ul>
                  </div>
                ) : null}
                {r && !r.accepted && r.reasons.length ? (
                  <p className="hint">Release registry: {r.reasons.join('; ')}</p>
                ) : null}
                <h3>Features</h3>
                <ul className="flags" aria-label="Feature flags">
                  {FEATURES.map(([k, label]) => (
                    <li key={k}>
                      <Badge tone={g.features?.[k] ? 'ok' : 'neutral'}>
                        {label}: {g.features?.[k] ? 'yes' : 'no'}
                      </Badge>
                    </li>
                  ))}
                </ul>
              </div>
            </li>
          );
        })}
      </ul>
      {c.items.length === 0 ? <p className="notice warn">No title matches these filters.</p> : null}
    </>
  );
}
