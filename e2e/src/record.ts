/**
 * How a test reports go-live items: each result is a test annotation (`golive`, a JSON
 * description), visible in the HTML report and combined by the summary reporter into one line per
 * item. A failed check records `fail` with its reason and stops the test; the items the test was
 * still going to check are recorded as not reached, naming the failure that stopped it.
 */
import { type TestInfo, test } from '@playwright/test';
import type { ItemId, ItemStatus } from './items.js';

export const ANNOTATION = 'golive';
/** A screenshot's path, relative to the output folder. */
export const SCREENSHOT = 'golive-screenshot';

export interface ItemRecord {
  item: ItemId;
  status: ItemStatus;
  detail: string;
  game?: string;
  device?: string;
}

/** A failed check whose item is already recorded. */
export class CheckFailed extends Error {
  override readonly name = 'CheckFailed';
}

/** The text of any error, without Playwright's call logs. */
export function reason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\nCall log:')[0]!.trim();
}

export class Recorder {
  private readonly open = new Set<ItemId>();
  private readonly done = new Set<ItemId>();

  constructor(
    private readonly info: TestInfo,
    private readonly where: { game?: string; device?: string } = {},
  ) {}

  /** The items this test will check (recorded as not reached if it stops first). */
  expect(...items: ItemId[]) {
    for (const i of items) if (!this.done.has(i)) this.open.add(i);
  }

  record(item: ItemId, status: ItemStatus, detail: string) {
    const r: ItemRecord = { item, status, detail, ...this.where };
    this.info.annotations.push({ type: ANNOTATION, description: JSON.stringify(r) });
    this.open.delete(item);
    this.done.add(item);
  }

  pass(item: ItemId, detail: string) {
    this.record(item, 'pass', detail);
  }
  warn(item: ItemId, detail: string) {
    this.record(item, 'warning', detail);
  }
  notCheckable(item: ItemId, detail: string) {
    this.record(item, 'not_checkable', detail);
  }

  /** Records `fail` and stops the test. */
  fail(item: ItemId, detail: string): never {
    this.record(item, 'fail', detail);
    throw new CheckFailed(`${item}: ${detail}`);
  }

  /**
   * One check as a step of the HTML report: `fn` answers the pass detail, or throws; a throw is
   * recorded as the item's failure (with `prefix` before the error's text) and stops the test.
   */
  async check<T>(
    item: ItemId,
    title: string,
    fn: () => Promise<{ value: T; detail: string }>,
    prefix = '',
  ): Promise<T> {
    return test.step(title, async () => {
      try {
        const { value, detail } = await fn();
        this.pass(item, detail);
        return value;
      } catch (err) {
        if (err instanceof CheckFailed) throw err;
        this.fail(item, `${prefix}${reason(err)}`);
      }
    });
  }

  /** Marks every item still open as not reached because of `cause`. */
  unreached(cause: unknown) {
    const why = cause instanceof CheckFailed ? cause.message : reason(cause);
    for (const item of [...this.open]) this.record(item, 'fail', `not reached: stopped at ${why}`);
  }
}
