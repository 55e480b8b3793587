import Link from 'next/link';
import type { ReactNode } from 'react';

/** A read the API refused (403: no role here; other failures explained). */
export function Problem({ status, detail }: { status: number; detail: string }) {
  return (
    <div className="notice bad" role="alert" data-testid="problem">
      <strong>{status === 403 ? 'No access. ' : `The request failed (HTTP ${status}). `}</strong>
      {detail}
    </div>
  );
}

export type Tone = 'ok' | 'bad' | 'warn' | 'neutral';

export function Badge({ tone, children, testId }: { tone: Tone; children: ReactNode; testId?: string }) {
  return (
    <span className={`badge ${tone}`} data-testid={testId}>
      {children}
    </span>
  );
}

const STATUS_TONE: Record<string, Tone> = {
  completed: 'ok',
  success: 'ok',
  active: 'ok',
  accepted: 'ok',
  passed: 'ok',
  cancelled: 'neutral',
  closed: 'neutral',
  rolled_back: 'warn',
  open: 'warn',
  settling: 'warn',
  pending: 'warn',
  rejected: 'bad',
  failed: 'bad',
  revoked: 'bad',
  refused: 'bad',
  blocked: 'bad',
  stuck: 'bad',
};

export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={STATUS_TONE[status] ?? 'neutral'}>{status.replace('_', ' ')}</Badge>;
}

/** Key-value facts. */
export function Facts({ items }: { items: [string, ReactNode][] }) {
  return (
    <dl className="facts">
      {items.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** "Next page" by keyset cursor, "First page" once past it. */
export function Pager({ next, first, label }: { next: string | null; first: string | null; label: string }) {
  if (!next && !first) return null;
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      {first ? <Link href={first}>First page</Link> : null}
      {next ? (
        <Link href={next} rel="next" data-testid="next-page">
          Next page
        </Link>
      ) : (
        <span className="hint">Last page</span>
      )}
    </nav>
  );
}

export function Field({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
    </div>
  );
}
