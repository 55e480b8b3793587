import { bodyPending, closeAfterAnswer } from '@opi/service-kit/http/body';
import { forbidden, unauthorized } from '@opi/service-kit/http/named-errors';
import { HEADER_NONCE, HEADER_SIGNATURE, HEADER_TIMESTAMP, verifyOperatorRequest } from '@opi/signing';
import type { Context, Next } from 'koa';
import type { ApiKeyRecord, KeyStore } from './keys.js';
import type { NonceClaimer } from './nonces.js';

export type ApiArea = 'provider' | 'operator' | 'admin';

export interface AuthDeps {
  keys: KeyStore;
  nonces: NonceClaimer;
  /** SIGNED_REQUESTS=required: every keyed request must carry a valid signature. */
  signedRequestsRequired: boolean;
  maxSkewSeconds: number;
}

export interface AuthState {
  keyId: string;
  kind: ApiKeyRecord['kind'];
  operatorId: string | null;
  signed: boolean;
}

/** The key from `x-provider-api-key` (preferred), `x-api-key`, or `Authorization: Bearer`. */
export function presentedKey(ctx: Context): string | undefined {
  const preferred = ctx.get('x-provider-api-key');
  if (preferred) return preferred;
  const compat = ctx.get('x-api-key');
  if (compat) return compat;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
  return match?.[1];
}

const SIGNATURE_FAILURES: Record<string, string> = {
  missing_headers: 'Signed request required: send x-pp-timestamp, x-pp-nonce and x-pp-signature',
  stale_timestamp: 'x-pp-timestamp is missing, malformed or outside the allowed skew',
  invalid_nonce: 'x-pp-nonce must be 16 to 128 visible ASCII characters',
  invalid_signature: 'Invalid request signature',
};

/**
 * The first link of a keyed route, before its body is read: the key must be present and known
 * (401 otherwise), so a request without a valid key never has its body read (an upload of 5 MiB
 * by anyone). The signature covers the body and is checked by `authenticate` after the read.
 */
export function requireKnownKey(deps: Pick<AuthDeps, 'keys'>) {
  return async (ctx: Context, next: Next) => {
    const raw = presentedKey(ctx);
    const key = raw && raw.length <= 256 ? await deps.keys.find(raw) : null;
    if (!key) {
      // The body is never read: the connection ends with the answer, so it cannot be sent anyway.
      if (bodyPending(ctx)) closeAfterAnswer(ctx);
      throw unauthorized(raw ? 'Invalid API key' : 'Missing API key');
    }
    await next();
  };
}

/**
 * Authenticates the key, verifies the request signature (always on /api/operator/v1, on every
 * keyed route when SIGNED_REQUESTS=required, and whenever signature headers are present), claims
 * the nonce once across every API process, and enforces which key kinds reach which area.
 */
export function authenticate(deps: AuthDeps, area: ApiArea) {
  return async (ctx: Context, next: Next) => {
    const raw = presentedKey(ctx);
    if (!raw) throw unauthorized('Missing API key');
    const key = raw.length <= 256 ? await deps.keys.find(raw) : null;
    if (!key) throw unauthorized('Invalid API key');

    const presented = ctx.get(HEADER_SIGNATURE) || ctx.get(HEADER_TIMESTAMP) || ctx.get(HEADER_NONCE);
    const mustSign = area === 'operator' || deps.signedRequestsRequired;
    let signed = false;
    if (mustSign || presented) {
      const check = verifyOperatorRequest(
        key.secret,
        {
          timestamp: ctx.get(HEADER_TIMESTAMP) || undefined,
          nonce: ctx.get(HEADER_NONCE) || undefined,
          signature: ctx.get(HEADER_SIGNATURE) || undefined,
        },
        { method: ctx.method, pathAndQuery: ctx.originalUrl, body: ctx.state.rawBody ?? Buffer.alloc(0) },
        { maxSkewSeconds: deps.maxSkewSeconds },
      );
      if (!check.ok) throw unauthorized(SIGNATURE_FAILURES[check.reason] ?? 'Invalid request signature');
      if (!(await deps.nonces.claim(key.keyId, ctx.get(HEADER_NONCE)))) {
        throw unauthorized('x-pp-nonce was already used');
      }
      signed = true;
    }

    if (area === 'admin' && key.kind !== 'admin')
      throw forbidden('Only provider-admin keys reach the admin API');
    if (area !== 'admin' && key.kind === 'admin') {
      throw forbidden('Provider-admin keys reach only /api/admin/v1');
    }
    const auth: AuthState = { keyId: key.keyId, kind: key.kind, operatorId: key.operatorId, signed };
    ctx.state.auth = auth;
    await next();
  };
}
