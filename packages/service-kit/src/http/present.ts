/**
 * A presenter's fields that go out as the record holds them: `keys` of `record`, in that order (the
 * order of the answer's JSON object).
 */
export function pick<T, K extends keyof T>(record: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) out[k] = record[k];
  return out;
}
