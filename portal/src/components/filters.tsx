import Link from 'next/link';
import type { ReactNode } from 'react';
import { Field } from './ui';

/*
 * The filter forms of the list pages (issue 36 point 3): a GET form of labelled controls, each
 * keeping the value the page was asked with. Every control has its label (`htmlFor` = its id).
 */

/** A GET form of filters with its submit button (and what follows it: a link that clears them). */
export function FilterForm({
  label,
  submit = 'Search',
  action,
  after,
  children,
}: {
  label: string;
  submit?: string;
  action?: string;
  after?: ReactNode;
  children: ReactNode;
}) {
  return (
    <form method="get" action={action} className="filters" aria-label={label}>
      {children}
      <button type="submit">{submit}</button>
      {after}
    </form>
  );
}

/**
 * A typed filter: free text (ids, symbols; the default), a `datetime-local` read as UTC, a day or a
 * month.
 */
export function TextFilter({
  name,
  label,
  value,
  type,
  required,
}: {
  name: string;
  label: string;
  value: string | undefined;
  type?: 'datetime-local' | 'date' | 'month';
  required?: boolean;
}) {
  return (
    <Field id={name} label={label}>
      {type ? (
        <input id={name} name={name} type={type} defaultValue={value ?? ''} required={required} />
      ) : (
        <input id={name} name={name} defaultValue={value ?? ''} autoComplete="off" />
      )}
    </Field>
  );
}

/** An option: its value, shown as itself, or `[value, label]`. */
export type FilterOption = string | readonly [string, string];

/** A choice among `options`, or any (the empty value, shown as `any`; `null`: no such choice). */
export function SelectFilter({
  name,
  id = name,
  label,
  value,
  options,
  any = 'Any',
}: {
  name: string;
  id?: string;
  label: string;
  value: string | undefined;
  options: readonly FilterOption[];
  any?: string | null;
}) {
  return (
    <Field id={id} label={label}>
      <select id={id} name={name} defaultValue={value ?? ''}>
        {any === null ? null : <option value="">{any}</option>}
        {options.map((o) => {
          const [v, text] = typeof o === 'string' ? [o, o] : o;
          return (
            <option key={v} value={v}>
              {text}
            </option>
          );
        })}
      </select>
    </Field>
  );
}

/** A UTC date and time (`datetime-local`, read as UTC by the page). */
export function DateTimeFilter(props: { name: string; label: string; value: string | undefined }) {
  return <TextFilter {...props} type="datetime-local" />;
}

/** The operator's currencies, or any (`any`: how "any currency" reads). */
export function CurrencyFilter({
  value,
  currencies,
  any,
}: {
  value: string | undefined;
  currencies: readonly string[];
  any?: string;
}) {
  return <SelectFilter name="currency" label="Currency" value={value} options={currencies} any={any} />;
}

/** Ready-made filters (the last 7 days, last month…): a link each, `[text, address]`. */
export function QuickLinks({
  label,
  links,
}: {
  label: string;
  links: readonly (readonly [string, string])[];
}) {
  return (
    <nav className="pager" aria-label={label}>
      {links.map(([text, href]) => (
        <Link key={text} href={href}>
          {text}
        </Link>
      ))}
    </nav>
  );
}

/** A yes-only filter (`name=true` when ticked). */
export function CheckFilter({ name, label, checked }: { name: string; label: string; checked: boolean }) {
  return (
    <div className="field">
      <label htmlFor={name}>
        <input id={name} name={name} type="checkbox" value="true" defaultChecked={checked} /> {label}
      </label>
    </div>
  );
}

/**
 * The searches of sessions and rounds: what they share (player, the session for rounds, game,
 * currency and status), as the page was asked with: trimmed, empty ones left out.
 */
export function playFilters(sp: Record<string, string | undefined>, withSession = false) {
  return {
    player_id: sp.player_id?.trim() || undefined,
    ...(withSession ? { session_id: sp.session_id?.trim() || undefined } : {}),
    game_symbol: sp.game_symbol?.trim() || undefined,
    currency: sp.currency || undefined,
    status: sp.status || undefined,
  };
}

/** The controls of `playFilters`, `statuses` the status choices (without "any"). */
export function PlayFilterControls({
  filters,
  currencies,
  statuses,
}: {
  filters: ReturnType<typeof playFilters> & { session_id?: string | undefined };
  currencies: readonly string[];
  statuses: readonly FilterOption[];
}) {
  return (
    <>
      <TextFilter name="player_id" label="Player (external id)" value={filters.player_id} />
      {'session_id' in filters ? (
        <TextFilter name="session_id" label="Session" value={filters.session_id} />
      ) : null}
      <TextFilter name="game_symbol" label="Game symbol" value={filters.game_symbol} />
      <CurrencyFilter value={filters.currency} currencies={currencies} />
      <SelectFilter name="status" label="Status" value={filters.status} options={statuses} />
    </>
  );
}
