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

type LaunchBody = Parameters<OperatorClient['createLaunchUrl']>[0];
type Launched = Awaited<ReturnType<OperatorClient['createLaunchUrl']>>;

/**
 * The currencies a launch refused at `body.currency` points to (issue 39): GB refuses a crypto
 * currency (GBP, EUR and USD are the GB stake caps' currencies); a crash title takes its own list
 * ("supports USD, EUR, GBP only") or the operator's default. Null for any other refusal.
 */
function currenciesPointedTo(refused: string): string[] | null {
  if (/not accepted under GB/.test(refused)) return ['GBP', 'EUR', 'USD'];
  const list = /supports ([A-Z]{3}(?:, [A-Z]{3})*) only/.exec(refused);
  if (list) return list[1]!.split(', ');
  const byDefault = /supports the operator's default currency \(([A-Z]{3})\) only/.exec(refused);
  return byDefault ? [byDefault[1]!] : null;
}

/**
 * A launch in the run's currency (`--currency`), or, when the service refuses that currency for
 * this launch alone (issue 39: a run in a crypto currency; GB refuses crypto, a crash title takes
 * its own currencies), in the first currency the refusal points to that the operator allows; `note`
 * says so with the refusal, as evidence. `runWide` false (a currency named for the game itself,
 * `symbol:CUR`) or any other refusal: thrown as before.
 */
export async function launchInRunCurrency(
  api: OperatorClient,
  body: LaunchBody,
  runWide: boolean,
): Promise<{ launched: Launched; note: string }> {
  let note = '';
  for (let attempt = 0; ; attempt++) {
    try {
      return { launched: await api.createLaunchUrl(body), note };
    } catch (err) {
      const refused = describeApiError(err);
      const pointed = apiStatus(err) === 422 && runWide && attempt < 2 ? currenciesPointedTo(refused) : null;
      if (!pointed || !body.currency) throw err;
      const allowed = (await api.getContract()).data.allowed_currencies;
      const other = pointed.find((c) => c !== body.currency && allowed.includes(c));
      if (!other) throw err;
      note += `${body.symbol} in ${body.currency} refused (${refused}): launched in ${other}; `;
      body = { ...body, currency: other };
    }
  }
}
