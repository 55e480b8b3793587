import type { ReactNode } from 'react';

/*
 * The portal's data tables (issue 36 point 3): a table in its scrolling frame (wide tables scroll
 * inside it on a phone), a caption, one header cell per column (`scope="col"`), a row per item.
 */

export interface Column<T> {
  head: ReactNode;
  /** An amount or count: right-aligned header and cells (`num`). */
  num?: boolean;
  /** The header cell's class, when not `num`. */
  thClass?: string;
  /** The cells' class, when not `num` (e.g. `mono` for ids). */
  tdClass?: string;
  cell: (row: T) => ReactNode;
}

export function DataTable<T>({
  rows,
  columns,
  rowKey,
  caption,
  captionClass,
  testId,
  rowAttrs,
}: {
  rows: readonly T[];
  columns: readonly Column<T>[];
  rowKey: (row: T) => string;
  caption?: ReactNode;
  /** e.g. `sr-only`: a caption for assistive technology only. */
  captionClass?: string;
  testId?: string;
  /** Extra attributes of a row (`data-*` the tests find it by). */
  rowAttrs?: (row: T) => Record<string, string>;
}) {
  return (
    <div className="table-wrap">
      <table data-testid={testId}>
        {caption === undefined ? null : <caption className={captionClass}>{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed per table
              <th key={i} scope="col" className={c.num ? 'num' : c.thClass}>
                {c.head}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} {...rowAttrs?.(row)}>
              {columns.map((c, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed per table
                <td key={i} className={c.num ? 'num' : c.tdClass}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A table, or a notice when there is no row. */
export function TableOr<T>({
  empty,
  emptyClass = 'notice warn',
  emptyTestId,
  ...table
}: Parameters<typeof DataTable<T>>[0] & { empty: ReactNode; emptyClass?: string; emptyTestId?: string }) {
  if (table.rows.length === 0)
    return (
      <p className={emptyClass} data-testid={emptyTestId}>
        {empty}
      </p>
    );
  return <DataTable {...table} />;
}
