import type { Locator, Page } from '@playwright/test';

/** What one round came to, as the page played it. */
export interface PlayedRound {
  roundId: string;
  betMinor: bigint;
  winMinor: bigint;
  /** How the round went, for the report ("spin", "cashed out at 1.04×", ...). */
  summary: string;
}

export interface Driver {
  /** The family's page is ready to play (its own state attribute). */
  ready(page: Page, timeoutMs: number): Promise<void>;
  /** Plays one round with the smallest stake and answers once the page shows its end. */
  play(page: Page, touch: boolean, timeoutMs: number): Promise<PlayedRound>;
}

export const hook = (page: Page, id: string): Locator => page.locator(`[data-testid="${id}"]`);

export async function press(page: Page, id: string, touch: boolean) {
  const el = hook(page, id);
  if (touch) await el.tap();
  else await el.click();
}

const text = async (l: Locator) => ((await l.count()) ? ((await l.first().textContent()) ?? '') : '');
export const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The page's own words when something went wrong (its error and message lines). */
export async function pageSays(page: Page): Promise<string> {
  const error = norm(await text(hook(page, 'game-error')));
  const errorShown = error && (await hook(page, 'game-error').first().isVisible());
  const message = norm(await text(hook(page, 'game-message')));
  return [errorShown ? `game-error: "${error}"` : '', message ? `game-message: "${message}"` : '']
    .filter(Boolean)
    .join('; ');
}

/** Thrown by a probe: stop polling at once (the page has shown its failure). */
export class Stop extends Error {
  override readonly name = 'Stop';
}

/** Polls `probe` until it answers a value (not undefined/false), or throws `what` timed out. */
export async function until<T>(
  page: Page,
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      if (err instanceof Stop) throw err;
      last = err;
    }
    if (Date.now() > deadline) {
      const says = await pageSays(page).catch(() => '');
      throw new Error(
        `timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}` +
          (says ? ` (the page says ${says})` : '') +
          (last
            ? ` (last error: ${last instanceof Error ? last.message.split('\n')[0] : String(last)})`
            : ''),
      );
    }
    await page.waitForTimeout(100);
  }
}

/** The shown balance in minor units, when the page shows one. */
export async function shownBalance(page: Page): Promise<bigint | undefined> {
  const el = hook(page, 'game-balance');
  if (!(await el.count()) || !(await el.isVisible())) return undefined;
  const minor = await el.getAttribute('data-balance-minor');
  return minor && /^-?\d+$/.test(minor) ? BigInt(minor) : undefined;
}

/** Selects the smallest stake of a `<select>` whose option values are minor units; answers it. */
export async function smallestStake(page: Page, id = 'stake-select'): Promise<bigint> {
  const values = await hook(page, id).evaluate((s) =>
    Array.from((s as HTMLSelectElement).options, (o) => o.value),
  );
  const stakes = values.filter((v) => /^\d+$/.test(v)).map((v) => BigInt(v));
  if (!stakes.length) throw new Error(`no stake is offered (${id} has no options)`);
  const min = stakes.reduce((a, b) => (b < a ? b : a));
  await hook(page, id).selectOption(min.toString());
  return min;
}

export const gameState = (page: Page) => hook(page, 'game').first().getAttribute('data-state');
