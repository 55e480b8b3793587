import { HttpError, type ValidationDetail } from './errors.js';

/**
 * Named error constructors (issue 36 point 4): a route throws `notFound('round')` or
 * `conflict('…')` rather than `new HttpError(404, 'Round not found')`, so the status of each kind
 * of error is written once, here, and a thing's "not found" message is spelled once.
 *
 * Each constructor returns the same `HttpError` the error boundary turns into the spec's JSON
 * error body (`{ detail, ...extra }`, with `headers` set on the response): what a client sees is
 * exactly what `new HttpError(status, detail, extra, headers)` gave. `extra` carries the machine
 * readable fields beside `detail` (the `error` code such as `operator_suspended`,
 * `retry_after_ms`, ...); `headers` the response headers of that answer (a 429's or 503's
 * `Retry-After`).
 */

/** Fields of the error body beside `detail`: the `error` code and what goes with it. */
export type ErrorExtra = { error?: string } & Record<string, unknown>;
/** Response headers of an error answer (e.g. `Retry-After`). */
export type ErrorHeaders = Record<string, string>;
/** A string detail, or the validation error items of a 422 (400 for a bad query of some reads). */
export type ErrorDetail = string | ValidationDetail[];

/** 400: the request is malformed (no JSON object body, a required field absent, ...). */
export const badRequest = (detail: ErrorDetail, extra?: ErrorExtra, headers?: ErrorHeaders): HttpError =>
  new HttpError(400, detail, extra, headers);

/** 401: no credentials, or credentials (API key, signature, session token, cookie) that do not hold. */
export const unauthorized = (detail: string, extra?: ErrorExtra, headers?: ErrorHeaders): HttpError =>
  new HttpError(401, detail, extra, headers);

/** 403: the caller is known but may not do this (role, key kind, operator status). */
export const forbidden = (detail: string, extra?: ErrorExtra, headers?: ErrorHeaders): HttpError =>
  new HttpError(403, detail, extra, headers);

/**
 * The things a request can name that may not exist, as their "not found" message spells them.
 * `notFound('prize drop')` is 404 "Prize drop not found".
 */
export const NOT_FOUND_THINGS = [
  'API key',
  'audit entry',
  'billing contract',
  'campaign',
  'game',
  'invoice',
  'jackpot',
  'operator',
  'prize drop',
  'provider',
  'round',
  'session',
  'staff account',
  'tournament',
] as const;
export type NotFoundThing = (typeof NOT_FOUND_THINGS)[number];

/** The detail of a 404 for `what`: "Round not found", "Round not found in this session", "Not found". */
export function notFoundMessage(what?: NotFoundThing, qualifier?: string): string {
  const head = what === undefined ? 'Not found' : `${what[0]!.toUpperCase()}${what.slice(1)} not found`;
  return qualifier ? `${head} ${qualifier}` : head;
}

/**
 * 404 for a thing the request names: `notFound('round')` is "Round not found";
 * `notFound('round', 'in this session')` is "Round not found in this session"; `notFound()` is
 * the bare "Not found".
 */
export const notFound = (what?: NotFoundThing, qualifier?: string): HttpError =>
  new HttpError(404, notFoundMessage(what, qualifier));

/**
 * 404 with a detail of its own ("No such symbol art", "Game not in the operator catalog"). A
 * thing's plain "… not found" is `notFound(thing)`, not this (the named-errors test holds it).
 */
export const notFoundDetail = (detail: string, extra?: ErrorExtra, headers?: ErrorHeaders): HttpError =>
  new HttpError(404, detail, extra, headers);

/** 409: the request is well formed but the state does not allow it now (or ever). */
export const conflict = (detail: string, extra?: ErrorExtra, headers?: ErrorHeaders): HttpError =>
  new HttpError(409, detail, extra, headers);

/** 415: the body is not of a media type the route reads. */
export const unsupportedMediaType = (detail: string, extra?: ErrorExtra, headers?: ErrorHeaders): HttpError =>
  new HttpError(415, detail, extra, headers);

/** 422: the body, query or path does not validate (a string, or the validation error items). */
export const unprocessable = (detail: ErrorDetail, extra?: ErrorExtra, headers?: ErrorHeaders): HttpError =>
  new HttpError(422, detail, extra, headers);

/**
 * 422 with one validation error item: `invalidField(['body', 'bet_minor'], 'the bet must be …')`
 * is `{ detail: [{ loc: ['body', 'bet_minor'], msg: 'the bet must be …', type: 'value_error' }] }`.
 */
export const invalidField = (loc: (string | number)[], msg: string, type = 'value_error'): HttpError =>
  new HttpError(422, [{ loc, msg, type }]);

/** 429: too many requests of this kind; `headers` carries its `Retry-After`. */
export const tooManyRequests = (detail: string, extra?: ErrorExtra, headers?: ErrorHeaders): HttpError =>
  new HttpError(429, detail, extra, headers);

/** 500: a server configuration is invalid (the contract's "another server configuration is invalid"). */
export const misconfigured = (detail: string, extra?: ErrorExtra, headers?: ErrorHeaders): HttpError =>
  new HttpError(500, detail, extra, headers);

/** 502: a peer this request needed (the operator's wallet, the settlement workflow) failed it. */
export const badGateway = (detail: string, extra?: ErrorExtra, headers?: ErrorHeaders): HttpError =>
  new HttpError(502, detail, extra, headers);

/** 503: the service cannot serve this now (a capacity limit, a runtime not configured). */
export const unavailable = (detail: string, extra?: ErrorExtra, headers?: ErrorHeaders): HttpError =>
  new HttpError(503, detail, extra, headers);

/**
 * 503 "Provider runtime not configured (no settlement service)": the contract's "provider runtime
 * not configured", naming what this process lacks.
 */
export const runtimeNotConfigured = (missing: string): HttpError =>
  new HttpError(503, `Provider runtime not configured (no ${missing})`);
