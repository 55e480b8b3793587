import type { ReactNode } from 'react';
import { Field } from './ui';

/*
 * The filter forms of the list pages (issue 36 point 3): a GET form of labelled controls, each
 * keeping the value the page was asked with. Every control has its label (`htmlFor` = its id).
 */

/** A GET form of filters with its submit button. */
export function FilterForm({
  label,
  submit = 'Search',
  action,
  children,
}: {
  label: string;
  submit?: string;
  action?: string;
  children: ReactNode;
}) {
  return (
    <form method="get" action={action} className="filters" aria-label={label}>
      {children}
      <button type="submit">{submit}</button>
    </form>
  );
}

/** A typed filter: free text (ids, symbols; the default) or a `datetime-local` read as UTC. */
export function TextFilter({
  name,
  label,
  value,
  type,
}: {
  name: string;
  label: string;
  value: string | undefined;
  type?: 'datetime-local';
}) {
  return (
    <Field id={name} label={label}>
      {type ? (
        <input id={name} name={name} type={type} defaultValue={value ?? ''} />
      ) : (
        <input id={name} name={name} defaultValue={value ?? ''} autoComplete="off" />
      )}
    </Field>
  );
}

/** An option: its value, shown as itself, or `[value, label]`. */
export type FilterOption = string | readonly [string, string];

/** A choice among `options`, or any (the empty value, shown as `any`). */
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
  any?: string;
}) {
  return (
    <Field id={id} label={label}>
      <select id={id} name={name} defaultValue={value ?? ''}>
        <option value="">{any}</option>
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

/** The operator's currencies, or any. */
export function CurrencyFilter({
  value,
  currencies,
}: {
  value: string | undefined;
  currencies: readonly string[];
}) {
  return <SelectFilter name="currency" label="Currency" value={value} options={currencies} />;
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
