/**
 * What a game page does while the suite drives it: console errors, uncaught errors, failed
 * requests, and the answers of its balance reads (the evidence when the operator's wallet does not
 * answer the service). Watching stops before close (leaving the page aborts its open requests).
 */
import type { Page, Request, Response } from '@playwright/test';

/** A page resource (not an API call): any 4xx of these is a failure too. */
const RESOURCE_TYPES = new Set(['document', 'script', 'stylesheet', 'image', 'font', 'media', 'manifest']);

export interface BalanceRead {
  ok: boolean;
  status: number;
  detail: string;
}

export class PageWatch {
  readonly problems: string[] = [];
  readonly balanceReads: BalanceRead[] = [];
  /** Runtime API answers with a 4xx (reported as evidence, not failures by themselves). */
  readonly apiRefusals: string[] = [];
  private watching = true;

  constructor(
    page: Page,
    private readonly ignore: (url: URL) => boolean,
  ) {
    page.on('console', (m) => {
      if (this.watching && m.type() === 'error') this.problems.push(`console error: ${m.text()}`);
    });
    page.on('pageerror', (e) => {
      if (this.watching) this.problems.push(`page error: ${e.message}`);
    });
    page.on('requestfailed', (r: Request) => {
      if (!this.watching || this.ignored(r.url())) return;
      this.problems.push(
        `request failed: ${r.method()} ${strip(r.url())} (${r.failure()?.errorText ?? 'failed'})`,
      );
    });
    page.on('response', (res: Response) => void this.onResponse(res));
  }

  private ignored(url: string): boolean {
    try {
      return this.ignore(new URL(url));
    } catch {
      return false;
    }
  }

  private async onResponse(res: Response) {
    const req = res.request();
    const url = new URL(res.url());
    const status = res.status();
    if (url.pathname === '/api/runtime/balance' && req.method() === 'GET') {
      // Recorded once its reason is read: a refusal is never reported without it.
      const detail = status === 200 ? '' : await detailOf(res);
      this.balanceReads.push({ ok: status === 200, status, detail });
    } else if (url.pathname === '/api/runtime/crash/state' && status === 200) {
      // The crash page's state carries the balance, or why the wallet gave none.
      const json = (await res.json().catch(() => ({}))) as { balance_error?: unknown };
      const error = typeof json.balance_error === 'string' ? json.balance_error : '';
      this.balanceReads.push({ ok: !error, status, detail: error });
    }
    if (!this.watching || this.ignored(res.url()) || status < 400) return;
    const what = `${req.method()} ${strip(res.url())} answered ${status}`;
    if (status >= 500 || RESOURCE_TYPES.has(req.resourceType())) {
      const detail = await detailOf(res);
      this.problems.push(`failed request: ${what}${detail ? ` (${detail})` : ''}`);
    } else {
      this.apiRefusals.push(what);
    }
  }

  /** Balance reads that did not answer 200, as text. */
  failedBalanceReads(): string[] {
    return this.balanceReads
      .filter((r) => !r.ok)
      .map((r) => `${r.status}${r.detail ? ` "${r.detail}"` : ''}`);
  }

  stop() {
    this.watching = false;
  }
}

/** A URL without its query (launch tokens never reach a report). */
export function strip(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}${u.search ? '?…' : ''}`;
}

async function detailOf(res: Response): Promise<string> {
  try {
    const json = (await res.json()) as { detail?: unknown };
    return typeof json.detail === 'string' ? json.detail : '';
  } catch {
    return '';
  }
}
