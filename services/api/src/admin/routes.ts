import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import {
  CreateApiKeyRequest,
  CreateOperatorRequest,
  EnabledRequest,
  OperatorId,
  PROVIDER_IDS,
  ReleaseRegistryRequest,
  ThumbnailFormat,
  UpdateOperatorRequest,
} from '@opi/contract';
import { withTransaction } from '@opi/db';
import { isSafeSvg, sniffImageType } from '@opi/games';
import {
  conflict,
  invalidField,
  notFound,
  notFoundDetail,
  unprocessable,
} from '@opi/service-kit/http/named-errors';
import { parseOr422 } from '@opi/service-kit/http/validate';
import { walletUrlRefusal } from '@opi/wallet';
import type { Context, Middleware } from 'koa';
import { createApiKey } from '../auth/keys.js';
import type { OperatorRow } from '../auth/operator-scope.js';
import { SAFE_SYMBOL } from '../catalog/artwork-routes.js';
import { BLOCKER_TEXT } from '../catalog/availability.js';
import { presentGame } from '../catalog/present.js';
import { loadCatalog } from '../catalog/repository.js';
import type { ApiDeps } from '../deps.js';
import { presentOperatorBasics } from '../present-operator.js';

const OPERATOR_COLUMNS = `operator_id, name, status, default_currency, allowed_currencies, bet_min_minor, bet_max_minor,
  wallet_base_url, wallet_secret_enc, artwork_format, default_jurisdiction, reality_check_interval_seconds,
  diagnostics_protection_player_id, created_at, updated_at`;

/** An operator as the admin API shows it: never the wallet secret, bet limits as strings. */
function presentOperator(row: OperatorRow & { created_at?: Date; updated_at?: Date }) {
  return {
    ...presentOperatorBasics(row),
    artwork_format: row.artwork_format,
    default_jurisdiction: row.default_jurisdiction,
    reality_check_interval_seconds: row.reality_check_interval_seconds,
    diagnostics_protection_player_id: row.diagnostics_protection_player_id,
  };
}

function newWalletSecret(): string {
  return `wsec_${randomBytes(32).toString('base64url')}`;
}

/** Key ids are `key_<hex>` (or the bootstrap `adm_bootstrap`). */
const SAFE_KEY_ID = /^[A-Za-z0-9_-]{1,128}$/;

async function getOperator(deps: ApiDeps, operatorId: string): Promise<OperatorRow> {
  // An id that cannot exist (e.g. with a NUL, which PostgreSQL refuses) is simply not found.
  if (!OperatorId.safeParse(operatorId).success) throw notFound('operator');
  const { rows } = await deps.pool.query<OperatorRow>(
    `SELECT ${OPERATOR_COLUMNS} FROM operators WHERE operator_id = $1`,
    [operatorId],
  );
  if (!rows[0]) throw notFound('operator');
  return rows[0];
}

async function requireGame(deps: ApiDeps, symbol: string): Promise<{ symbol: string; provider_id: string }> {
  if (!SAFE_SYMBOL.test(symbol)) throw notFound('game');
  const { rows } = await deps.pool.query<{ symbol: string; provider_id: string }>(
    `SELECT symbol, provider_id FROM games WHERE symbol = $1 OR slug = $1`,
    [symbol],
  );
  if (!rows[0]) throw notFound('game');
  return rows[0];
}

const body = (ctx: Context) => ctx.state.body ?? {};

/**
 * Issue 23 point 5: a wallet URL must be HTTPS in production and must not name, or resolve to,
 * a link-local or metadata address (ever) or a loopback or private one (in production, unless
 * WALLET_ALLOW_PRIVATE_NETWORKS=1). 422 naming the field; every connection is checked again.
 */
async function checkWalletUrl(deps: ApiDeps, url: string | null | undefined): Promise<void> {
  if (!url) return;
  const refusal = await walletUrlRefusal(url, {
    ...(deps.walletNetwork ?? { allowPrivate: !deps.isProduction }),
    requireHttps: deps.isProduction,
  });
  if (refusal) throw invalidField(['body', 'wallet_base_url'], refusal);
}

/** The provider admin API: provider staff only (provider-admin keys). */
export function adminRoutes(deps: ApiDeps, guard: Middleware[], artworkGuard: Middleware[]): Router {
  const r = new Router({ prefix: '/api/admin/v1' });

  // An admin write is visible to this process before its answer goes out: the local caches (keys,
  // operators, catalogs) are dropped now rather than when the NOTIFY comes back, so a revoked key
  // is refused from the next request on. Other processes drop theirs when the NOTIFY arrives.
  r.use(async (ctx, next) => {
    try {
      await next();
    } finally {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') deps.feed.version++;
    }
  });

  r.get('/games', ...guard, async (ctx) => {
    const rows = await loadCatalog(deps.pool, { operatorId: null });
    const present = { publicBaseUrl: deps.publicBaseUrl, operator: null, isProduction: deps.isProduction };
    ctx.body = {
      success: true,
      data: {
        items: rows.map((row) => ({
          ...presentGame(row, present),
          installed_version: row.installed_version,
          integration_mode: row.integration_mode,
          flags: { enabled: row.enabled, operator_wallet_enabled: row.operator_wallet_enabled },
          provider_switch_enabled: row.switch_on,
        })),
        total: rows.length,
      },
    };
  });

  r.post('/operators', ...guard, async (ctx) => {
    const input = parseOr422(CreateOperatorRequest, body(ctx), 'body');
    await checkWalletUrl(deps, input.wallet_base_url);
    const walletSecret = input.wallet_secret ?? newWalletSecret();
    const allowed = [
      ...new Set([input.default_currency, ...(input.allowed_currencies ?? [input.default_currency])]),
    ];
    const { rows } = await deps.pool.query<OperatorRow>(
      `INSERT INTO operators (operator_id, name, status, default_currency, allowed_currencies, bet_min_minor,
                              bet_max_minor, wallet_base_url, wallet_secret_enc, artwork_format,
                              default_jurisdiction, reality_check_interval_seconds,
                              diagnostics_protection_player_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (operator_id) DO NOTHING
       RETURNING ${OPERATOR_COLUMNS}`,
      [
        input.operator_id,
        input.name,
        input.status,
        input.default_currency,
        allowed,
        BigInt(input.bet_limits.min),
        BigInt(input.bet_limits.max),
        input.wallet_base_url ?? null,
        deps.box.encrypt(walletSecret),
        input.artwork_format,
        input.default_jurisdiction ?? null,
        input.reality_check_interval_seconds ?? null,
        input.diagnostics_protection_player_id ?? null,
      ],
    );
    if (!rows[0]) throw conflict(`Operator ${input.operator_id} already exists`);
    ctx.status = 201;
    ctx.body = {
      success: true,
      data: { ...presentOperator(rows[0]), ...(input.wallet_secret ? {} : { wallet_secret: walletSecret }) },
    };
  });

  r.get('/operators/:operator_id', ...guard, async (ctx) => {
    ctx.body = { success: true, data: presentOperator(await getOperator(deps, ctx.params.operator_id!)) };
  });

  r.patch('/operators/:operator_id', ...guard, async (ctx) => {
    const input = parseOr422(UpdateOperatorRequest, body(ctx), 'body');
    await checkWalletUrl(deps, input.wallet_base_url);
    const current = await getOperator(deps, ctx.params.operator_id!);
    const rotated = input.rotate_wallet_secret ? newWalletSecret() : input.wallet_secret;
    const defaultCurrency = input.default_currency ?? current.default_currency;
    const allowed = [
      ...new Set([defaultCurrency, ...(input.allowed_currencies ?? current.allowed_currencies)]),
    ];
    // A status change locks the row FOR UPDATE first: it waits for the rounds being recorded (they
    // hold the row's key-share lock) and they wait for it, so no round of a suspended operator is
    // written after this answer, in any process (sessions/takes-bets.ts).
    const { rows } = await withTransaction(deps.pool, async (c) => {
      if (input.status !== undefined)
        await c.query(`SELECT 1 FROM operators WHERE operator_id = $1 FOR UPDATE`, [current.operator_id]);
      return c.query<OperatorRow>(
        `UPDATE operators SET name = $2, status = $3, default_currency = $4, allowed_currencies = $5,
              bet_min_minor = $6, bet_max_minor = $7, wallet_base_url = $8, wallet_secret_enc = $9,
              artwork_format = $10, default_jurisdiction = $11, reality_check_interval_seconds = $12,
              diagnostics_protection_player_id = $13, updated_at = now()
       WHERE operator_id = $1 RETURNING ${OPERATOR_COLUMNS}`,
        [
          current.operator_id,
          input.name ?? current.name,
          input.status ?? current.status,
          defaultCurrency,
          allowed,
          input.bet_limits ? BigInt(input.bet_limits.min) : current.bet_min_minor,
          input.bet_limits ? BigInt(input.bet_limits.max) : current.bet_max_minor,
          input.wallet_base_url === undefined ? current.wallet_base_url : input.wallet_base_url,
          rotated ? deps.box.encrypt(rotated) : current.wallet_secret_enc,
          input.artwork_format ?? current.artwork_format,
          input.default_jurisdiction === undefined
            ? current.default_jurisdiction
            : input.default_jurisdiction,
          input.reality_check_interval_seconds === undefined
            ? current.reality_check_interval_seconds
            : input.reality_check_interval_seconds,
          input.diagnostics_protection_player_id === undefined
            ? current.diagnostics_protection_player_id
            : input.diagnostics_protection_player_id,
        ],
      );
    });
    ctx.body = {
      success: true,
      data: {
        ...presentOperator(rows[0]!),
        ...(input.rotate_wallet_secret ? { wallet_secret: rotated } : {}),
      },
    };
  });

  r.post('/operators/:operator_id/api-keys', ...guard, async (ctx) => {
    const input = parseOr422(CreateApiKeyRequest, body(ctx), 'body');
    const operator = await getOperator(deps, ctx.params.operator_id!);
    ctx.status = 201;
    ctx.body = {
      success: true,
      data: await createApiKey(deps.pool, deps.box, 'operator', operator.operator_id, input.label ?? null),
    };
  });

  r.post('/master-keys', ...guard, async (ctx) => {
    const input = parseOr422(CreateApiKeyRequest, body(ctx), 'body');
    ctx.status = 201;
    ctx.body = {
      success: true,
      data: await createApiKey(deps.pool, deps.box, 'master', null, input.label ?? null),
    };
  });

  r.delete('/api-keys/:key_id', ...guard, async (ctx) => {
    const auth = ctx.state.auth as { keyId: string };
    if (ctx.params.key_id === auth.keyId) throw conflict('A key cannot revoke itself');
    if (!SAFE_KEY_ID.test(ctx.params.key_id ?? '') || !(await deps.keys.revoke(ctx.params.key_id!)))
      throw notFound('API key', 'or already revoked');
    ctx.body = { success: true, data: { key_id: ctx.params.key_id, revoked: true } };
  });

  r.get('/operators/:operator_id/games', ...guard, async (ctx) => {
    const operator = await getOperator(deps, ctx.params.operator_id!);
    const rows = await loadCatalog(deps.pool, { operatorId: operator.operator_id, assignedOnly: true });
    const present = { publicBaseUrl: deps.publicBaseUrl, operator, isProduction: deps.isProduction };
    const items = rows.map((row) => {
      const game = presentGame(row, present);
      return {
        ...game,
        blocker_text: (game.operator_availability?.blockers ?? []).map((b) => BLOCKER_TEXT[b]),
      };
    });
    ctx.body = {
      success: true,
      data: {
        operator_id: operator.operator_id,
        items,
        total: items.length,
        launchable_games: items.filter((g) => g.operator_availability?.launch_available).map((g) => g.symbol),
        ready_games: items.filter((g) => g.release_readiness?.accepted).map((g) => g.symbol),
      },
    };
  });

  r.put('/operators/:operator_id/games/:symbol', ...guard, async (ctx) => {
    const input = parseOr422(EnabledRequest, body(ctx), 'body');
    const operator = await getOperator(deps, ctx.params.operator_id!);
    const game = await requireGame(deps, ctx.params.symbol!);
    await deps.pool.query(
      `INSERT INTO operator_games (operator_id, symbol, enabled) VALUES ($1, $2, $3)
       ON CONFLICT (operator_id, symbol) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()`,
      [operator.operator_id, game.symbol, input.enabled],
    );
    ctx.body = {
      success: true,
      data: { operator_id: operator.operator_id, symbol: game.symbol, enabled: input.enabled },
    };
  });

  r.delete('/operators/:operator_id/games/:symbol', ...guard, async (ctx) => {
    const operator = await getOperator(deps, ctx.params.operator_id!);
    const game = await requireGame(deps, ctx.params.symbol!);
    const { rowCount } = await deps.pool.query(
      `DELETE FROM operator_games WHERE operator_id = $1 AND symbol = $2`,
      [operator.operator_id, game.symbol],
    );
    if (!rowCount) throw notFoundDetail('The title is not assigned to this operator');
    ctx.body = {
      success: true,
      data: { operator_id: operator.operator_id, symbol: game.symbol, assigned: false },
    };
  });

  r.put('/release-registry/:symbol', ...guard, async (ctx) => {
    const input = parseOr422(ReleaseRegistryRequest, body(ctx), 'body');
    const game = await requireGame(deps, ctx.params.symbol!);
    await deps.pool.query(
      `INSERT INTO release_registry (symbol, registry_version, status, detail, reasons, evidence, deployment_identity)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (symbol, registry_version) DO UPDATE SET status = EXCLUDED.status, detail = EXCLUDED.detail,
         reasons = EXCLUDED.reasons, evidence = EXCLUDED.evidence,
         deployment_identity = EXCLUDED.deployment_identity, updated_at = now()`,
      [
        game.symbol,
        input.registry_version,
        input.status,
        input.detail,
        input.reasons,
        input.evidence,
        input.deployment_identity,
      ],
    );
    ctx.body = { success: true, data: { symbol: game.symbol, ...input } };
  });

  r.put('/providers/:provider_id/switch', ...guard, async (ctx) => {
    const providerId = ctx.params.provider_id!;
    if (!(PROVIDER_IDS as readonly string[]).includes(providerId)) throw notFound('provider');
    const input = parseOr422(EnabledRequest, body(ctx), 'body');
    await deps.pool.query(
      `UPDATE provider_switches SET enabled = $2, updated_at = now() WHERE provider_id = $1`,
      [providerId, input.enabled],
    );
    ctx.body = { success: true, data: { provider_id: providerId, enabled: input.enabled } };
  });

  r.put('/games/:symbol/operator-wallet', ...guard, async (ctx) => {
    const input = parseOr422(EnabledRequest, body(ctx), 'body');
    const game = await requireGame(deps, ctx.params.symbol!);
    if (game.provider_id !== 'prov_c' && game.provider_id !== 'prov_d') {
      throw conflict('The per-title operator-wallet flag applies to prov_c and prov_d titles only');
    }
    await deps.pool.query(
      `UPDATE games SET operator_wallet_enabled = $2, updated_at = now() WHERE symbol = $1`,
      [game.symbol, input.enabled],
    );
    ctx.body = { success: true, data: { symbol: game.symbol, operator_wallet_enabled: input.enabled } };
  });

  r.put('/games/:symbol/artwork', ...artworkGuard, async (ctx) => {
    const game = await requireGame(deps, ctx.params.symbol!);
    const format = parseOr422(ThumbnailFormat.default('vertical'), ctx.query.format, 'query');
    const bytes = ctx.state.rawBody as Buffer;
    const type = bytes.length ? sniffImageType(bytes) : null;
    if (!type) throw unprocessable('The body is not a PNG, JPEG, WebP or SVG image');
    if (type === 'image/svg+xml' && !isSafeSvg(bytes.toString('utf8'))) {
      throw unprocessable('The SVG contains scripts, event handlers or external references');
    }
    await withTransaction(deps.pool, (c) =>
      c.query(
        `INSERT INTO game_artwork (symbol, format, content_type, bytes) VALUES ($1, $2, $3, $4)
         ON CONFLICT (symbol, format) DO UPDATE SET content_type = EXCLUDED.content_type, bytes = EXCLUDED.bytes,
           updated_at = now()`,
        [game.symbol, format, type, bytes],
      ),
    );
    ctx.body = {
      success: true,
      data: { symbol: game.symbol, format, content_type: type, bytes: bytes.length },
    };
  });

  return r;
}
