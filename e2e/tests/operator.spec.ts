/**
 * The operator's API checks (no browser): the operator is active, the key reads the catalog, and
 * the catalog holds exactly the expected games, each launch-available with an accepted release.
 * A missing game is explained by the service's own answer to a launch of it.
 */
import { test } from '@playwright/test';
import { apiStatus, describeApiError, operatorClient } from '../src/operator.js';
import { Recorder } from '../src/record.js';
import { loadSettings, playerId, target } from '../src/settings.js';

const settings = loadSettings();

test('operator active; catalog holds exactly the expected games', async () => {
  const rec: Recorder = new Recorder(test.info());
  const { baseUrl, apiKey } = target(settings);
  const api = operatorClient(baseUrl, apiKey);
  rec.expect('operator_active', 'key_catalog_launch', 'catalog_expected');
  try {
    const contract = await rec.check(
      'operator_active',
      'the operator is active (signed contract read)',
      async () => {
        const c = await api.getContract().catch((err: unknown) => {
          const status = apiStatus(err);
          const why =
            status === 403
              ? 'the operator is not active (or the key is not an operator key)'
              : status === 401
                ? 'the key or its signature was refused'
                : 'the contract could not be read';
          throw new Error(`${why}: ${describeApiError(err)}`);
        });
        const d = c.data;
        return {
          value: d,
          detail: `${d.operator_id}: contract ${d.version}, currencies ${d.allowed_currencies.join('/')}, bet limits ${d.bet_limits.min ?? '-'}..${d.bet_limits.max ?? '-'}`,
        };
      },
    );

    const catalog = await rec.check('key_catalog_launch', 'the key reads the catalog', async () => {
      const g = await api.listGames().catch((err: unknown) => {
        throw new Error(`catalog read refused: ${describeApiError(err)}`);
      });
      return { value: g.data, detail: `catalog 200: ${g.data.total} games for ${g.data.operator_id}` };
    });

    await rec.check('catalog_expected', 'the catalog holds exactly the expected games', async () => {
      const problems: string[] = [];
      const matched = new Set<string>();
      for (const want of settings.expected) {
        const item = catalog.items.find((i) => i.symbol === want.symbol || i.slug === want.symbol);
        if (!item) {
          // Why: the launch route names the blocker (release acceptance, disabled, transport ...).
          const player = playerId(settings, contract.operator_id, 'probe', want.symbol);
          const currency = want.currency ?? settings.currency;
          const answer = await api
            .createLaunchUrl({
              symbol: want.symbol,
              external_player_id: player,
              return_url: settings.returnUrl,
              ...(currency ? { currency } : {}),
            })
            .then(
              () => 'yet a launch of it succeeds',
              (err: unknown) => `a launch answers ${describeApiError(err)}`,
            );
          problems.push(`${want.symbol} is not in the operator catalog (${answer})`);
          continue;
        }
        matched.add(item.symbol);
        const a = item.operator_availability;
        const r = item.release_readiness;
        if (a && !a.launch_available)
          problems.push(
            `${item.symbol} is listed but not launch-available (blockers: ${a.blockers.join(', ')})`,
          );
        if (r && !r.accepted)
          problems.push(
            `${item.symbol} has no accepted release (${r.status}: ${r.reasons.join(', ') || r.detail})`,
          );
      }
      const extra = catalog.items
        .filter((i) => !matched.has(i.symbol))
        .map((i) => `${i.symbol} (${i.provider_id})`);
      if (extra.length) problems.push(`not expected but in the catalog: ${extra.join(', ')}`);
      if (problems.length) throw new Error(problems.join('; '));
      return {
        value: undefined,
        detail: `exactly the ${settings.expected.length} expected games: ${catalog.items.map((i) => `${i.symbol} (${i.provider_id})`).join(', ')}`,
      };
    });
  } catch (err) {
    rec.unreached(err);
    throw err;
  } finally {
    // Evidence for the items that cannot be checked from outside.
    const listed = await api.listGames().then(
      (g) => g.data.items,
      () => [],
    );
    const readiness = listed
      .filter((i) => settings.expected.some((e) => e.symbol === i.symbol || e.symbol === i.slug))
      .map(
        (i) =>
          `${i.symbol} ${i.release_readiness?.status ?? 'unknown'} (${i.release_readiness?.registry_version ?? '-'})`,
      );
    rec.notCheckable(
      'feature_acceptance',
      `catalog release readiness of the expected games: ${readiness.join(', ') || 'none listed'}`,
    );
    const provB = listed.filter((i) => i.provider_id === 'prov_b').map((i) => i.symbol);
    rec.notCheckable(
      'prov_b_rollout',
      provB.length
        ? `prov_b titles are in the catalog (the switch is on): ${provB.join(', ')}`
        : 'no prov_b title is in the catalog (the switch is off, or none is assigned)',
    );
  }
});

/**
 * Jurisdiction rules (issue 18): a launch of an expected slot title with `jurisdiction: 'GB'`
 * reports the GB rules (2.5 s between spin starts, no autoplay, no turbo), and the server refuses a
 * second spin started within 2.5 s of the first (429 spin_too_soon). The spins go to the launch
 * URL's own runtime with its token, as the game page sends them (one round is played).
 */
test('jurisdiction rules: a GB launch reports them; a second spin within 2.5 s is refused', async () => {
  const rec: Recorder = new Recorder(test.info());
  const { baseUrl, apiKey } = target(settings);
  const api = operatorClient(baseUrl, apiKey);
  rec.expect('jurisdiction_rules');
  try {
    const games = (await api.listGames()).data.items;
    const slot = games.find(
      (i) =>
        (i.provider_id === 'prov_a' || i.provider_id === 'prov_b') &&
        settings.expected.some((e) => e.symbol === i.symbol || e.symbol === i.slug),
    );
    if (!slot) {
      rec.notCheckable('jurisdiction_rules', 'no expected slot title (prov_a/prov_b) to launch');
      return;
    }
    await rec.check('jurisdiction_rules', `GB rules on ${slot.symbol}`, async () => {
      const operatorId = (await api.getContract()).data.operator_id;
      const launched = await api.createLaunchUrl({
        symbol: slot.symbol,
        external_player_id: playerId(settings, operatorId, 'jurisdiction', slot.symbol),
        jurisdiction: 'GB',
        ...(settings.currency ? { currency: settings.currency } : {}),
      });
      const rules = launched.data.rules;
      if (
        rules?.jurisdiction !== 'GB' ||
        rules.min_spin_interval_ms !== 2500 ||
        rules.autoplay ||
        rules.turbo
      )
        throw new Error(`the launch reports ${JSON.stringify(rules ?? null)}, not the GB rules`);
      const url = new URL(launched.data.launch_url);
      const token = url.searchParams.get('mgckey') ?? '';
      const runtime = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(new URL(path, url.origin), {
          method,
          headers: { 'x-session-token': token, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return {
          status: res.status,
          json: (await res.json().catch(() => null)) as Record<string, unknown> | null,
        };
      };
      const session = await runtime('GET', '/api/runtime/session');
      const stake = (session.json?.stakes_minor as string[] | undefined)?.[0];
      if (session.status !== 200 || !stake) throw new Error(`the session read answered ${session.status}`);
      // The first spin is in flight (its answer waits for the settlement, which may take longer
      // than 2.5 s); the next ones start while it is, each within 2.5 s of its start.
      const t0 = Date.now();
      const first = runtime('POST', '/api/runtime/spin', { bet_minor: stake });
      const answers: number[] = [];
      for (;;) {
        await new Promise((r) => setTimeout(r, 200));
        if (Date.now() - t0 > 2000) break;
        const next = await runtime('POST', '/api/runtime/spin', { bet_minor: stake });
        answers.push(next.status);
        if (next.status === 429 && next.json?.error === 'spin_too_soon') {
          await first;
          return {
            value: null,
            detail: `${slot.symbol}: rules ${JSON.stringify(rules)}; a spin ${Date.now() - t0} ms after the first started was refused (429 spin_too_soon, retry_after_ms ${String(next.json.retry_after_ms)})`,
          };
        }
        // Taken: this one started first (the first spin's statement ran later); the first must be refused.
        if (next.status === 200) {
          const late = await first;
          if (late.status === 429)
            return {
              value: null,
              detail: `${slot.symbol}: the later of two spins 0.2 s apart was refused (429)`,
            };
          // The two statements overlapped: the first one waited on the round this one was writing
          // and, not yet seeing it committed, was refused as "another round is still being
          // settled" (409) rather than spin_too_soon. Still one round of the two: the rule held.
          if (late.status === 409)
            return {
              value: null,
              detail: `${slot.symbol}: of two spins 0.2 s apart whose statements overlapped, one was taken and the other refused (409 round still being settled)`,
            };
          throw new Error(`two spins less than 2.5 s apart were both taken (${late.status}, 200)`);
        }
      }
      const f = await first;
      throw new Error(
        `no spin within 2 s of the first was refused with 429 (first ${f.status}, then ${answers.join(', ')})`,
      );
    });
  } catch (err) {
    rec.unreached(err);
    throw err;
  }
});
