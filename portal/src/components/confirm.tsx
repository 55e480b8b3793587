import Link from 'next/link';
import type { ReactNode } from 'react';

/**
 * An admin's destructive action in two steps (a campaign's or tournament's cancel): a link to the
 * page with `?confirm=cancel`, which shows what happens, an optional reason (kept in the audit
 * log), the button that posts to `action`, and "Keep it" back to the page.
 */
export function ConfirmCancel({
  base,
  confirming,
  question,
  confirm,
  start,
}: {
  /** The page (the form posts to `${base}/cancel`). */
  base: string;
  confirming: boolean;
  /** What the cancel does, in words. */
  question: ReactNode;
  /** The confirming button's text. */
  confirm: string;
  /** The first step's link text. */
  start: string;
}) {
  return confirming ? (
    <form
      method="post"
      action={`${base}/cancel`}
      className="notice warn filters"
      data-testid="cancel-confirm"
    >
      <p>{question}</p>
      <div className="field">
        <label htmlFor="cancel-reason">Reason (kept in the audit log, optional)</label>
        <input id="cancel-reason" name="reason" maxLength={500} autoComplete="off" />
      </div>
      <button type="submit" className="danger">
        {confirm}
      </button>
      <Link className="button secondary" href={base}>
        Keep it
      </Link>
    </form>
  ) : (
    <Link className="button secondary" href={`${base}?confirm=cancel#cancel`} data-testid="cancel-start">
      {start}
    </Link>
  );
}
