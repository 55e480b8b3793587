import type { StaffAuditEntry } from '@opi/contract';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { when } from '../lib/format';

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

/**
 * What became of a staff action, read back from its audit row (`?action=<audit id>`): who, when and
 * the API's message, `ok` when it did what was asked (`okResults`), else a warning; and the API's
 * refusal (`?error=`) when there is one.
 */
export function ActionOutcome({
  done,
  error,
  texts,
  okResults,
  testId,
}: {
  done: StaffAuditEntry | undefined;
  error: string | undefined;
  /** The result's heading by result (`cancelled`: "Campaign cancelled"). */
  texts: Record<string, string>;
  okResults: readonly string[];
  testId: string;
}) {
  return (
    <>
      {done ? (
        <div
          className={`notice ${okResults.includes(done.result) ? 'ok' : 'warn'}`}
          role="status"
          data-testid={testId}
          data-result={done.result}
        >
          <strong>{texts[done.result] ?? done.result}</strong> by {done.username} at {when(done.at)}:{' '}
          {String(done.detail.message ?? '')}
        </div>
      ) : null}
      {error ? (
        <div className="notice bad" role="alert" data-testid="cancel-error">
          The cancel failed: {error}
        </div>
      ) : null}
    </>
  );
}
