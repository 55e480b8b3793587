import { type Loaded, qs } from '../lib/api';
import { TableOr } from './table';
import { Pager, Problem } from './ui';

/**
 * "Next page" and "First page" of a keyset-paged list: the page's own address (`base`) with its
 * filters (`query`) and the answer's next cursor under `param` (`cursor` unless the page pages two
 * lists); "First page" once the page was asked with a cursor (`current`).
 */
export function KeysetPager({
  label,
  base,
  query = {},
  next,
  current,
  param = 'cursor',
  hash = '',
}: {
  label: string;
  base: string;
  query?: Record<string, string | number | undefined | null>;
  next: string | null;
  current: string | undefined;
  param?: string;
  /** An anchor on the page to land on (`#hits`). */
  hash?: string;
}) {
  return (
    <Pager
      label={label}
      next={next ? `${base}${qs({ ...query, [param]: next })}${hash}` : null}
      first={current ? `${base}${qs(query)}${hash}` : null}
    />
  );
}

/** A keyset page of a list: its table (or the notice when empty) and, under a table, its pager. */
export function PagedTable<T>({
  pager,
  ...table
}: Parameters<typeof TableOr<T>>[0] & { pager: Parameters<typeof KeysetPager>[0] }) {
  return (
    <>
      <TableOr {...table} />
      {table.rows.length === 0 ? null : <KeysetPager {...pager} />}
    </>
  );
}

/**
 * A list page's answer from the API (a keyset page: `items`, `next_cursor`): its refusal explained,
 * or its table (the notice when empty) and pager.
 */
export function LoadedPage<T>({
  page,
  pager,
  ...table
}: Omit<Parameters<typeof TableOr<T>>[0], 'rows'> & {
  page: Loaded<{ items: T[]; next_cursor: string | null }>;
  pager: Omit<Parameters<typeof KeysetPager>[0], 'next'>;
}) {
  if (!page.ok) return <Problem {...page} />;
  return <PagedTable {...table} rows={page.data.items} pager={{ ...pager, next: page.data.next_cursor }} />;
}
