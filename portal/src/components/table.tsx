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
  /** The row's header cell (`<th scope="row">`): what names the row. */
  rowHeader?: boolean;
  /** Extra attributes of a cell (`data-minor`, `data-field` the tests read). */
  attrs?: (row: T) => Record<string, string | number | undefined>;
  cell: (row: T) => ReactNode;
}

/** One cell of a row: its header cell or a data cell, with its class and attributes. */
function Cell<T>({ column: c, row }: { column: Column<T>; row: T }) {
  const props = { className: c.num ? 'num' : c.tdClass, ...c.attrs?.(row) };
  return c.rowHeader ? (
    <th scope="row" {...props}>
      {c.cell(row)}
    </th>
  ) : (
    <td {...props}>{c.cell(row)}</td>
  );
}

export function DataTable<T>({
  rows,
  columns,
  rowKey,
  caption,
  captionClass,
  testId,
  rowAttrs,
  rowNote,
  emptyRow,
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
  /** A row with nothing to show but a note: its first cell, then the note across the other columns. */
  rowNote?: (row: T) => ReactNode;
  /** Without rows: one row of this text across every column (the table itself stays). */
  emptyRow?: ReactNode;
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
          {rows.map((row) => {
            const note = rowNote?.(row);
            return (
              <tr key={rowKey(row)} {...rowAttrs?.(row)}>
                {note === undefined || note === null ? (
                  columns.map((c, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: the columns are fixed per table
                    <Cell key={i} column={c} row={row} />
                  ))
                ) : (
                  <>
                    <Cell column={columns[0]!} row={row} />
                    <td colSpan={columns.length - 1}>{note}</td>
                  </>
                )}
              </tr>
            );
          })}
          {rows.length === 0 && emptyRow !== undefined ? (
            <tr>
              <td colSpan={columns.length}>{emptyRow}</td>
            </tr>
          ) : null}
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
