/**
 * The operator's API checks (no browser): the operator is active, the key reads the catalog, and
 * the catalog holds exactly the expected games, each launch-available with an accepted release.
 * A missing game is explained by the service's own answer to a launch of it.
 */
import { test } from '@playwright/test';
import { apiStatus, describeApiError, launchInRunCurrency, operatorClient } from '../src/operator.js';
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
      const { launched, note } = await launchInRunCurrency(
        api,
        {
          symbol: slot.symbol,
          external_player_id: playerId(settings, operatorId, 'jurisdiction', slot.symbol),
          jurisdiction: 'GB',
          ...(settings.currency ? { currency: settings.currency } : {}),
        },
        true,
      );
      const rules = launched.data.rules;
      if (
        rules?.jurisdiction !== 'GB' ||
        rules.min_spin_interval_ms !== 2500 ||
        rules.autoplay ||
        rules.turbo
      )
        throw new Error(`the launch reports ${JSON.stringify(rules ?? null)}, not the GB rules`);
      // The stake cap (issue 26): named in the rules, and a spin above it refused before anything is written.
      const cap = (rules as { max_stake_minor?: number | null }).max_stake_minor;
      if (typeof cap !== 'number' || cap <= 0)
        throw new Error(
          `the GB launch reports no stake cap (max_stake_minor ${JSON.stringify(cap ?? null)})`,
        );
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
      const over = await runtime('POST', '/api/runtime/spin', { bet_minor: String(cap + 1) });
      // An operator whose own bet limit is below the cap refuses the spin by its limit first.
      const byLimit = over.status === 422 && /the bet must be between/.test(JSON.stringify(over.json));
      if (over.status !== 422 || (over.json?.error !== 'stake_above_cap' && !byLimit))
        throw new Error(
          `a spin of ${cap + 1} minor (over the cap of ${cap}) answered ${over.status} ${JSON.stringify(over.json)}, not 422 stake_above_cap`,
        );
      const capped = `${note}the stake cap ${cap} ${launched.data.currency} (a spin of ${cap + 1} refused: 422 ${byLimit ? "by the operator's own lower bet limit" : 'stake_above_cap'})`;
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
            detail: `${slot.symbol}: rules ${JSON.stringify(rules)}; ${capped}; a spin ${Date.now() - t0} ms after the first started was refused (429 spin_too_soon, retry_after_ms ${String(next.json.retry_after_ms)})`,
          };
        }
        // Taken: this one started first (the first spin's statement ran later); the first must be refused.
        if (next.status === 200) {
          const late = await first;
          if (late.status === 429)
            return {
              value: null,
              detail: `${slot.symbol}: ${capped}; the later of two spins 0.2 s apart was refused (429)`,
            };
          // The two statements overlapped: the first one waited on the round this one was writing
          // and, not yet seeing it committed, was refused as "another round is still being
          // settled" (409) rather than spin_too_soon. Still one round of the two: the rule held.
          if (late.status === 409)
            return {
              value: null,
              detail: `${slot.symbol}: ${capped}; of two spins 0.2 s apart whose statements overlapped, one was taken and the other refused (409 round still being settled)`,
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

/**
 * Jurisdiction rules for native and crash titles (issue 26): per expected prov_c and prov_d title,
 * a GB launch reports 5 s between game cycles and no autoplay, and the server refuses a bet sent
 * right after a cycle ended (429 cycle_too_soon). One cycle is played through the launch's own
 * runtime with its token, as the page plays it: a native bet (cashed out, or a Mines tile
 * revealed first, where the round is still open), or a crash bet cashed out at once.
 */
test('jurisdiction rules: GB native and crash titles wait 5 s between game cycles', async () => {
  const rec: Recorder = new Recorder(test.info());
  const { baseUrl, apiKey } = target(settings);
  const api = operatorClient(baseUrl, apiKey);
  rec.expect('jurisdiction_rules');
  try {
    const games = (await api.listGames()).data.items.filter(
      (i) =>
        (i.provider_id === 'prov_c' || i.provider_id === 'prov_d') &&
        settings.expected.some((e) => e.symbol === i.symbol || e.symbol === i.slug),
    );
    if (!games.length) {
      rec.notCheckable('jurisdiction_rules', 'no expected native (prov_c) or crash (prov_d) title to launch');
      return;
    }
    const operatorId = (await api.getContract()).data.operator_id;
    for (const game of games) {
      await rec.check('jurisdiction_rules', `GB game cycles on ${game.symbol}`, async () => {
        const expected = settings.expected.find((e) => e.symbol === game.symbol || e.symbol === game.slug);
        const currency = expected?.currency ?? settings.currency;
        const { launched, note } = await launchInRunCurrency(
          api,
          {
            symbol: game.symbol,
            external_player_id: playerId(settings, operatorId, 'jurisdiction', game.symbol),
            jurisdiction: 'GB',
            ...(currency ? { currency } : {}),
          },
          !expected?.currency,
        );
        const rules = launched.data.rules as
          | { jurisdiction?: string; min_cycle_interval_ms?: number | null; autoplay?: boolean }
          | undefined;
        if (rules?.jurisdiction !== 'GB' || rules.min_cycle_interval_ms !== 5000 || rules.autoplay !== false)
          throw new Error(
            `the launch reports ${JSON.stringify(rules ?? null)}, not 5 s between cycles and no autoplay`,
          );
        const url = new URL(launched.data.launch_url);
        let token = '';
        const runtime = async (
          method: string,
          path: string,
          body?: unknown,
          headers: Record<string, string> = {},
        ) => {
          const res = await fetch(new URL(path, url.origin), {
            method,
            headers: { 'x-session-token': token, 'content-type': 'application/json', ...headers },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          return { status: res.status, json: (await res.json().catch(() => null)) as any };
        };
        const fail = (what: string, r: { status: number; json: unknown }) => {
          throw new Error(`${what} answered ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
        };
        let cycle: string;
        let bet: () => Promise<{ status: number; json: any }>;
        if (game.provider_id === 'prov_c') {
          const ex = await runtime('POST', '/api/runtime/native/session-from-grant', {
            grant: url.searchParams.get('grant'),
          });
          if (ex.status !== 200) fail('the grant exchange', ex);
          token = ex.json.token;
          const stake = ex.json.default_stake_minor ?? ex.json.stakes_minor?.[0];
          bet = () => runtime('POST', '/api/runtime/native/bet', { stake_minor: stake });
          const first = await bet();
          if (first.status !== 200) fail('the first bet', first);
          let round = first.json.round;
          const act = async (body: Record<string, unknown>) => {
            const r = await runtime('POST', '/api/runtime/native/action', {
              round_id: round.round_id,
              ...body,
            });
            if (r.status === 200) round = r.json.round;
            return r;
          };
          // Ended by a cash-out (Hi-Lo after its first card), or a tile first (Mines: no cash-out before one).
          if (round.status === 'open' || round.status === 'in_progress' || round.win_minor === null) {
            const cash = await act({ action: 'cashout' });
            if (cash.status !== 200) {
              // Mines reveals a tile first; Hi-Lo makes a guess first.
              let step = await act({ action: 'reveal', cell: 0 });
              // Hi-Lo offers "higher" on every card but the top one: "lower" there.
              if (step.status !== 200) step = await act({ action: 'guess', guess: 'higher' });
              if (step.status !== 200) step = await act({ action: 'guess', guess: 'lower' });
              if (step.status !== 200) fail('a first move', step);
              if (round.status !== 'completed' && round.status !== 'settling' && round.win_minor === null) {
                const again = await act({ action: 'cashout' });
                if (again.status !== 200) fail('the cash-out', again);
              }
            }
          }
          cycle = `a ${game.symbol} round (${round.status})`;
        } else {
          const auth = await runtime('POST', '/api/runtime/crash/authorize', undefined, {
            'x-login-grant': url.searchParams.get('login') ?? '',
          });
          if (auth.status !== 200) fail('the login grant', auth);
          token = auth.json.session_token;
          bet = async () => {
            const state = await runtime('GET', '/api/runtime/crash/state');
            if (state.status !== 200) fail('the state read', state);
            return runtime('POST', '/api/runtime/crash/bet', {
              stake_minor: state.json.stakes_minor?.[0],
              client_seed: 'golive-gb',
              commitment: state.json.next?.commitment ?? '0'.repeat(64),
            });
          };
          const first = await bet();
          if (first.status !== 200) fail('the first bet', first);
          const roundId = first.json.round.round_id;
          // Cashed out as soon as the cash-out opens (the round's multiplier has started), else it crashes.
          const deadline = Date.now() + 60_000;
          let cashed = false;
          for (;;) {
            if (!cashed) {
              const c = await runtime('POST', '/api/runtime/crash/cashout', { round_id: roundId });
              cashed = c.status === 200;
            }
            const r = await runtime('GET', `/api/runtime/crash/rounds/${roundId}`);
            if (r.json?.state === 'crashed' || r.json?.state === 'cashed_out') break;
            if (Date.now() > deadline)
              fail(`the crash round ${roundId} did not end within 60 s: its read`, r);
            await new Promise((res) => setTimeout(res, 250));
          }
          cycle = `a ${game.symbol} round cashed out at once`;
        }
        // The cycle has ended once the state names the wait before the next (its round settled).
        const statePath =
          game.provider_id === 'prov_c' ? '/api/runtime/native/state' : '/api/runtime/crash/state';
        const waitUntil = Date.now() + 60_000;
        for (;;) {
          const st = await runtime('GET', statePath);
          if (st.json?.next_cycle) break;
          if (Date.now() > waitUntil) fail(`60 s after ${cycle}, the state read`, st);
          await new Promise((res) => setTimeout(res, 200));
        }
        const t0 = Date.now();
        const next = await bet();
        if (next.status !== 429 || next.json?.error !== 'cycle_too_soon')
          fail(`a bet right after ${cycle} ended`, next);
        return {
          value: undefined,
          detail: `${note}${game.symbol}: rules {GB, min_cycle_interval_ms 5000, autoplay false}; a bet right after ${cycle} ended was refused (429 cycle_too_soon, retry_after_ms ${String(next.json.retry_after_ms)}, ${Date.now() - t0} ms)`,
        };
      });
    }
  } catch (err) {
    rec.unreached(err);
    throw err;
  }
});
