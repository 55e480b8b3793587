import Router from '@koa/router';
import {
  ReconciliationQuery,
  RoundSearchQuery,
  StaffAuditEntry,
  StaffAuditList,
  StaffAuditQuery,
  StaffCampaignCancelResult,
  StaffCampaignDetail,
  StaffCampaignList,
  StaffCancelRequest,
  StaffCancelResult,
  StaffCatalog,
  StaffCatalogQuery,
  StaffCharts,
  StaffChartsQuery,
  StaffDiagnosticsResult,
  StaffLoginRequest,
  StaffLoginResult,
  StaffLogoutResult,
  StaffMe,
  StaffOperatorInfo,
  StaffProtectionView,
  StaffReconciliationView,
  StaffRoundDetail,
  StaffRoundPage,
  StaffSessionDetail,
  StaffSessionPage,
  StaffSessionSearchQuery,
  StaffUsername,
  WalletDiagnosticsRequest,
} from '@opi/contract';
import { readBody } from '@opi/service-kit/http/body';
import { invalidField, notFound, tooManyRequests, unauthorized } from '@opi/service-kit/http/named-errors';
import { flatQuery, parseOr422 } from '@opi/service-kit/http/validate';
import type { Context } from 'koa';
import { reconcile, reconciliationCsv } from '../audit/reconciliation.js';
import { getSession, replayLinksOf, searchRounds } from '../audit/repository.js';
import type { ApiDeps } from '../deps.js';
import { campaignIdParam } from '../free-rounds/campaigns.js';
import { presentOperatorBasics } from '../present-operator.js';
import { getAudit, listAudit, writeAudit } from './audit-log.js';
import {
  authenticateStaff,
  clientIp,
  findSession,
  openSession,
  operatorOf,
  revokeSession,
  roleOn,
  type StaffPrincipal,
  staffOf,
  staffScope,
} from './auth.js';
import { cancelRound } from './cancel.js';
import { staffCatalog } from './catalog.js';
import { chartWindow, differencesByDay, playCharts } from './charts.js';
import { runWalletDiagnostics } from './diagnostics.js';
import {
  StaffCampaignCancelRequest,
  StaffCampaignQuery,
  staffCampaign,
  staffCampaigns,
  staffCancelCampaign,
} from './free-rounds.js';
import { decoyHash, HashQueueFull, hashPassword, needsRehash, verifyPassword } from './password.js';
import { staffPromotionRoutes } from './promotions.js';
import { protectionView } from './protection.js';
import {
  countLoginAttempt,
  loginFailed,
  loginSucceeded,
  notChecked,
  purgeOldAttempts,
} from './rate-limit.js';
import { staffReportRoutes } from './reports.js';
import { staffResponder } from './respond.js';
import { roundDetail } from './round-detail.js';
import { searchSessions } from './sessions.js';

function pathId(ctx: Context, name: string): string {
  const id = ctx.params[name] ?? '';
  if (id.length < 1 || id.length > 200 || id.includes('\u0000')) {
    throw invalidField(['path', name], 'must be 1 to 200 characters');
  }
  return id;
}

const query = (ctx: Context) => flatQuery(ctx.query);

/** The staff member and the operators they may open, for the portal's header and picker. */
async function me(deps: ApiDeps, staff: StaffPrincipal): Promise<StaffMe> {
  const { rows } = await deps.pool.query<{ operator_id: string; name: string; status: string }>(
    staff.providerRole
      ? `SELECT operator_id, name, status FROM operators ORDER BY operator_id`
      : `SELECT operator_id, name, status FROM operators WHERE operator_id = ANY($1) ORDER BY operator_id`,
    staff.providerRole ? [] : [Object.keys(staff.roles)],
  );
  return {
    username: staff.username,
    display_name: staff.displayName,
    provider_role: staff.providerRole,
    operators: rows.map((o) => ({ ...o, role: roleOn(staff, o.operator_id)! })),
  };
}

/**
 * The staff API behind the portal (/api/staff/v1). Login answers a session token; every other
 * route takes it as a bearer token. Operator routes live under /operators/{operator_id}, where
 * staffScope decides, in one place, whether this staff member may read (viewer) or act (admin).
 * Reads reuse the audit repository and reconciliation; nothing here reaches around them.
 */
export function staffRoutes(deps: ApiDeps): Router {
  const r = new Router({ prefix: '/api/staff/v1' });
  const pool = deps.pool;
  const auth = authenticateStaff(pool);
  const viewer = staffScope(pool, 'viewer');
  const admin = staffScope(pool, 'admin');
  const ipOf = (ctx: Context) => clientIp(ctx, deps.staffPortalSecret, deps.trustedProxies);
  const respond = staffResponder(deps);
  r.use(async (ctx, next) => {
    await next();
    ctx.set('Cache-Control', 'no-store');
  });

  r.post('/login', readBody(), async (ctx) => {
    const input = parseOr422(StaffLoginRequest, ctx.state.body ?? {}, 'body');
    const parsedName = StaffUsername.safeParse(input.username);
    const username = parsedName.success ? parsedName.data : input.username.trim().toLowerCase().slice(0, 64);
    const ip = ipOf(ctx);
    void purgeOldAttempts(pool).catch(() => {});
    const limit = await countLoginAttempt(pool, username, ip);
    const log = (result: string, staffId: string | null, detail: Record<string, unknown> = {}) =>
      writeAudit(pool, {
        staffId,
        username,
        operatorId: null,
        action: 'login',
        result,
        clientIp: ip,
        detail,
      });
    const refuse = (retryAfterSeconds: number, message: string) => {
      ctx.set('Retry-After', String(retryAfterSeconds));
      return tooManyRequests(message, { retry_after_seconds: retryAfterSeconds });
    };
    if (!limit.allowed) {
      await log('rate_limited', null, { retry_after_seconds: limit.retryAfterSeconds, rule: limit.reason });
      throw refuse(
        limit.retryAfterSeconds,
        limit.reason === 'slowdown'
          ? 'This account had many failed logins: wait and try again'
          : 'Too many login attempts: wait and try again',
      );
    }
    const { rows } = parsedName.success
      ? await pool.query<{ staff_id: string; password_hash: string; disabled: boolean }>(
          `SELECT staff_id, password_hash, disabled FROM staff_users WHERE username = $1`,
          [username],
        )
      : { rows: [] };
    const user = rows[0];
    // The same work whether or not the account exists: no timing difference to probe names with.
    // At most HASH_CONCURRENCY checks run at once (password.ts); a full queue is refused untried.
    let ok: boolean;
    try {
      ok = await verifyPassword(input.password, user?.password_hash ?? (await decoyHash()));
    } catch (err) {
      if (!(err instanceof HashQueueFull)) throw err;
      await notChecked(pool, username, ip);
      await log('rate_limited', null, { retry_after_seconds: 1, rule: 'busy' });
      throw refuse(1, 'Too many logins in progress: try again in a moment');
    }
    if (!user || !ok || user.disabled) {
      await loginFailed(pool, username, ip, limit.accountAttempts);
      await log('failed', user?.staff_id ?? null, user?.disabled && ok ? { disabled: true } : {});
      throw unauthorized('Wrong username or password');
    }
    await loginSucceeded(pool, username, ip);
    // A hash made at an older cost is replaced now that the password is known (same password, so
    // sessions and password_changed_at stay; a concurrent change of the password wins).
    if (needsRehash(user.password_hash)) {
      try {
        await pool.query(
          `UPDATE staff_users SET password_hash = $3 WHERE staff_id = $1 AND password_hash = $2`,
          [user.staff_id, user.password_hash, await hashPassword(input.password)],
        );
      } catch (err) {
        if (!(err instanceof HashQueueFull)) throw err;
      }
    }
    const session = await openSession(pool, user.staff_id, {
      clientIp: ip,
      userAgent: ctx.get('user-agent'),
    });
    await log('ok', user.staff_id);
    const staff = (await findSession(pool, session.token))!;
    respond(ctx, StaffLoginResult, { ...session, staff: await me(deps, staff) });
  });

  r.post('/logout', auth, async (ctx) => {
    const staff = staffOf(ctx);
    await revokeSession(pool, staff.tokenHash);
    await writeAudit(pool, {
      staffId: staff.staffId,
      username: staff.username,
      operatorId: null,
      action: 'logout',
      result: 'ok',
      clientIp: ipOf(ctx),
    });
    respond(ctx, StaffLogoutResult, { logged_out: true });
  });

  r.get('/me', auth, async (ctx) => {
    respond(ctx, StaffMe, await me(deps, staffOf(ctx)));
  });

  const op = new Router({ prefix: '/operators/:operator_id' });
  const opId = (ctx: Context) => operatorOf(ctx).operator_id;

  op.get('/', auth, viewer, (ctx) => {
    respond(ctx, StaffOperatorInfo, { ...presentOperatorBasics(operatorOf(ctx)), role: ctx.state.staffRole });
  });

  op.get('/catalog', auth, viewer, async (ctx) => {
    const q = parseOr422(StaffCatalogQuery, query(ctx), 'query');
    respond(ctx, StaffCatalog, await staffCatalog(deps, operatorOf(ctx), q));
  });

  op.get('/sessions', auth, viewer, async (ctx) => {
    const q = parseOr422(StaffSessionSearchQuery, query(ctx), 'query');
    respond(ctx, StaffSessionPage, await searchSessions(pool, opId(ctx), q));
  });
  op.get('/sessions/:session_id', auth, viewer, async (ctx) => {
    const sessionId = pathId(ctx, 'session_id');
    const rq = parseOr422(RoundSearchQuery, { ...query(ctx), session_id: sessionId }, 'query');
    const [session, rounds] = await Promise.all([
      getSession(pool, opId(ctx), sessionId),
      searchRounds(pool, replayLinksOf(deps), opId(ctx), rq),
    ]);
    respond(ctx, StaffSessionDetail, { ...session, round_page: rounds });
  });

  op.get('/rounds', auth, viewer, async (ctx) => {
    const q = parseOr422(RoundSearchQuery, query(ctx), 'query');
    respond(ctx, StaffRoundPage, await searchRounds(pool, replayLinksOf(deps), opId(ctx), q));
  });
  op.get('/rounds/:round_id', auth, viewer, async (ctx) => {
    respond(
      ctx,
      StaffRoundDetail,
      await roundDetail(pool, replayLinksOf(deps), opId(ctx), pathId(ctx, 'round_id')),
    );
  });
  op.post('/rounds/:round_id/cancel', readBody(), auth, admin, async (ctx) => {
    const input = parseOr422(StaffCancelRequest, ctx.state.body ?? {}, 'body');
    const result = await cancelRound(deps, pool, {
      operatorId: opId(ctx),
      roundId: pathId(ctx, 'round_id'),
      reason: input.reason,
      staff: staffOf(ctx),
      clientIp: ipOf(ctx),
    });
    respond(ctx, StaffCancelResult, result);
  });

  op.get('/stuck', auth, viewer, async (ctx) => {
    const q = parseOr422(RoundSearchQuery, { ...query(ctx), stuck: 'true' }, 'query');
    respond(ctx, StaffRoundPage, await searchRounds(pool, replayLinksOf(deps), opId(ctx), q));
  });

  // Player protection (issue 18): refused debits by code, blocked sessions, reality checks.
  op.get('/protection', auth, viewer, async (ctx) => {
    respond(ctx, StaffProtectionView, await protectionView(pool, opId(ctx)));
  });

  // Free-round campaigns (issue 18): the list, one campaign with its players and rounds, an admin's cancel.
  op.get('/free-rounds', auth, viewer, async (ctx) => {
    respond(ctx, StaffCampaignList, await staffCampaigns(deps, operatorOf(ctx), ctx.query));
  });
  op.get('/free-rounds/:campaign_id', auth, viewer, async (ctx) => {
    const campaignId = campaignIdParam(ctx.params.campaign_id ?? '');
    const q = parseOr422(StaffCampaignQuery, query(ctx), 'query');
    respond(ctx, StaffCampaignDetail, await staffCampaign(pool, opId(ctx), campaignId, q));
  });
  op.post('/free-rounds/:campaign_id/cancel', readBody(), auth, admin, async (ctx) => {
    const campaignId = campaignIdParam(ctx.params.campaign_id ?? '');
    const input = parseOr422(StaffCampaignCancelRequest, ctx.state.body ?? {}, 'body');
    const result = await staffCancelCampaign(deps, {
      operator: operatorOf(ctx),
      campaignId,
      reason: input.reason,
      staff: staffOf(ctx),
      clientIp: ipOf(ctx),
    });
    respond(ctx, StaffCampaignCancelResult, result);
  });

  // Jackpots, tournaments and prize drops (issue 25): reads, and a provider admin's tournament create and cancel.
  staffPromotionRoutes(op, deps, { auth, viewer, ipOf, respond });

  // Money reports (issue 38 point 5): the daily report and its CSV, invoices and credit notes, the rates they used.
  staffReportRoutes(op, deps, { auth, viewer });

  op.get('/reconciliation.csv', auth, viewer, async (ctx) => {
    const q = parseOr422(ReconciliationQuery, query(ctx), 'query');
    const rec = await reconcile(pool, opId(ctx), q);
    ctx.type = 'text/csv; charset=utf-8; header=present';
    ctx.set('Content-Disposition', `attachment; filename="reconciliation-${rec.operator_id}.csv"`);
    ctx.body = reconciliationCsv(rec);
  });
  op.get('/reconciliation', auth, viewer, async (ctx) => {
    const q = parseOr422(ReconciliationQuery, query(ctx), 'query');
    const rec = await reconcile(pool, opId(ctx), q);
    respond(ctx, StaffReconciliationView, { ...rec, by_day: await differencesByDay(pool, rec) });
  });

  op.get('/charts', auth, viewer, async (ctx) => {
    const q = parseOr422(StaffChartsQuery, query(ctx), 'query');
    respond(ctx, StaffCharts, await playCharts(pool, opId(ctx), chartWindow(q)));
  });

  op.post('/wallet-diagnostics', readBody(), auth, admin, async (ctx) => {
    const input = parseOr422(WalletDiagnosticsRequest, ctx.state.body ?? {}, 'body');
    const staff = staffOf(ctx);
    const operator = operatorOf(ctx);
    const run = await runWalletDiagnostics(pool, deps.box, operator, {
      playerId: input.player_id,
      currency: input.currency,
      network: {
        ...(deps.walletNetwork ?? { allowPrivate: !deps.isProduction }),
        requireHttps: deps.isProduction,
      },
    });
    const audit = await writeAudit(pool, {
      staffId: staff.staffId,
      username: staff.username,
      operatorId: operator.operator_id,
      action: 'wallet.diagnostics',
      target: run.wallet_base_url,
      result: run.passed ? 'passed' : 'failed',
      clientIp: ipOf(ctx),
      detail: { ...run },
    });
    respond(ctx, StaffDiagnosticsResult, { ...run, audit_id: audit.audit_id, at: audit.at });
  });

  op.get('/audit-log', auth, viewer, async (ctx) => {
    const q = parseOr422(StaffAuditQuery, query(ctx), 'query');
    respond(ctx, StaffAuditList, { items: await listAudit(pool, opId(ctx), q) });
  });
  op.get('/audit-log/:audit_id', auth, viewer, async (ctx) => {
    const entry = await getAudit(pool, opId(ctx), ctx.params.audit_id ?? '');
    if (!entry) throw notFound('audit entry');
    respond(ctx, StaffAuditEntry, entry);
  });

  r.use(op.routes(), op.allowedMethods());
  return r;
}
