/** Default allowed clock skew between signer and verifier, in seconds (configurable). */
export const DEFAULT_MAX_SKEW_SECONDS = 300;

/** Current Unix time in whole seconds, as the decimal string sent in `x-pp-timestamp`. */
export function unixSeconds(now: Date = new Date()): string {
  return String(Math.floor(now.getTime() / 1000));
}

/**
 * Whether a presented `x-pp-timestamp` is a plain decimal Unix-seconds value within
 * `maxSkewSeconds` of `nowSeconds`, in either direction.
 */
export function timestampFresh(
  presented: unknown,
  nowSeconds: number = Math.floor(Date.now() / 1000),
  maxSkewSeconds: number = DEFAULT_MAX_SKEW_SECONDS,
): boolean {
  if (typeof presented !== 'string' || !/^[0-9]{1,12}$/.test(presented)) return false;
  return Math.abs(Number(presented) - nowSeconds) <= maxSkewSeconds;
}
