/**
 * How a wallet answer is understood (spec, Events, obligation 5):
 * - 200 with `success: true` and a decimal-string `balance`: success;
 * - 400 with `success: false`: a definite rejection (the error code is kept);
 * - 401 `invalid_signature`: a configuration fault (alert; keep the intent; never give up money);
 * - anything else (timeout, connection error, 5xx, a malformed or unexpected body): uncertain,
 *   retried with the same transaction_id and the same body, byte for byte.
 */
export type WalletOutcome =
  | { kind: 'success'; balance: string; httpStatus: number }
  | { kind: 'rejected'; error: string; message?: string; httpStatus: number }
  /** A 401, or (no httpStatus) a wallet address the network policy refuses: nothing was sent. */
  | { kind: 'config_fault'; error: string; message?: string; httpStatus?: number }
  | { kind: 'uncertain'; reason: string; httpStatus?: number };

const DECIMAL = /^-?[0-9]+(?:\.[0-9]+)?$/;

export function classifyResponse(status: number, bodyText: string): WalletOutcome {
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    if (status === 401) return { kind: 'config_fault', error: 'invalid_signature', httpStatus: status };
    return { kind: 'uncertain', reason: `HTTP ${status} with a body that is not JSON`, httpStatus: status };
  }
  const obj =
    body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (status === 200) {
    if (obj?.success === true && typeof obj.balance === 'string' && DECIMAL.test(obj.balance)) {
      return { kind: 'success', balance: obj.balance, httpStatus: status };
    }
    return {
      kind: 'uncertain',
      reason: 'HTTP 200 without success: true and a decimal-string balance',
      httpStatus: status,
    };
  }
  if (status === 400 && obj?.success === false && typeof obj.error === 'string' && obj.error.length > 0) {
    return {
      kind: 'rejected',
      error: obj.error,
      ...(typeof obj.message === 'string' ? { message: obj.message } : {}),
      httpStatus: status,
    };
  }
  if (status === 401) {
    const error = typeof obj?.error === 'string' ? obj.error : 'invalid_signature';
    return {
      kind: 'config_fault',
      error,
      ...(typeof obj?.message === 'string' ? { message: obj.message } : {}),
      httpStatus: status,
    };
  }
  return { kind: 'uncertain', reason: `HTTP ${status}`, httpStatus: status };
}
