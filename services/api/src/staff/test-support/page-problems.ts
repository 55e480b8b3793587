import type { Page } from 'playwright-core';

/**
 * What went wrong on a portal page, for the browser tests to assert empty: script errors, console
 * errors, and every 4xx or 5xx answer with its method and address. An answer to a Next.js router
 * prefetch (request header `next-router-prefetch`) is only reported in `prefetchMisses`: the
 * router prefetches links in view when the browser is idle, so on a loaded machine it may fetch one
 * the test never opens (CI once saw a bare "Failed to load resource: 404" that never showed on a
 * quiet machine). Chromium's console line for a failed load names no address in its text; it is
 * matched to the answers by its location when `problems` is read.
 */
export interface PageProblems {
  /** Everything that went wrong so far (read it after the page has settled). */
  readonly problems: string[];
  /** Addresses of prefetches answered 4xx or 5xx (not problems). */
  readonly prefetchMisses: string[];
}

export function watchPage(page: Page): PageProblems {
  const own: string[] = [];
  const failedAnswers = new Set<string>();
  const prefetchMisses = new Set<string>();
  const failedLoads: string[] = [];
  page.on('pageerror', (e) => own.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (m.text().startsWith('Failed to load resource')) failedLoads.push(m.location().url);
    else own.push(`console: ${m.text()}`);
  });
  page.on('response', (r) => {
    if (r.status() < 400) return;
    const url = r.url();
    if (r.request().headers()['next-router-prefetch'] !== undefined) {
      prefetchMisses.add(url);
      return;
    }
    failedAnswers.add(url);
    own.push(`${r.status()} ${r.request().method()} ${url}`);
  });
  return {
    get problems() {
      const unmatched = failedLoads.filter((url) => !failedAnswers.has(url) && !prefetchMisses.has(url));
      return [...own, ...unmatched.map((url) => `console: failed to load ${url || '(no address)'}`)];
    },
    get prefetchMisses() {
      return [...prefetchMisses];
    },
  };
}
