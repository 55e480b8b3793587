/**
 * The operator's side of the run: the platform's own operator SDK (every request signed with the
 * key, a fresh nonce per attempt, launches never repeated once sent), as an operator would call it.
 */
import { createOperatorClient, OperatorApiError, type OperatorClient } from '@opi/operator-sdk';

export type { OperatorClient };

export function operatorClient(baseUrl: string, apiKey: string): OperatorClient {
  return createOperatorClient({ baseUrl, apiKey, timeoutMs: 15_000 });
}

/** "403 Game not enabled: ..." for a service answer, else the error's message. */
export function describeApiError(err: unknown): string {
  if (err instanceof OperatorApiError) {
    if (err.status === undefined) return `no answer (${err.message})`;
    const d = err.detail;
    const detail =
      typeof d === 'string'
        ? d
        : Array.isArray(d)
          ? d.map((x: { loc?: unknown[]; msg?: string }) => `${(x.loc ?? []).join('.')}: ${x.msg}`).join('; ')
          : d === undefined
            ? ''
            : JSON.stringify(d);
    return `${err.status}${detail ? ` ${detail}` : ''}`;
  }
  return err instanceof Error ? err.message : String(err);
}

export function apiStatus(err: unknown): number | undefined {
  return err instanceof OperatorApiError ? err.status : undefined;
}
