import * as contract from '@opi/contract';
import { AMOUNT_UNIT, CONTRACT_VERSION, SERVICE_INTERFACE_VERSION, WALLET_CALLBACKS } from '@opi/contract';
import { z } from 'zod';
import { INPUT_SCHEMAS, OUTPUT_SCHEMAS } from './components.js';
import FIELD_DOCS from './field-docs.generated.json' with { type: 'json' };
import { type Auth, OPERATIONS, type Operation, TAGS } from './operations.js';

/*
 * The OpenAPI 3.1 document, generated: every schema comes from z.toJSONSchema over the contract's
 * zod schemas (components.ts), every operation from the table in operations.ts. Nothing is a JSON
 * Schema written by hand.
 */

export type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, JsonSchema> } & Record<string, unknown>;
};

export interface OpenApiOptions {
  /**
   * Closed response objects (`additionalProperties: false`, as the contract's zod output types
   * are): the conformance test uses it so an undocumented field fails. The served document is
   * open, so that clients keep working when a field is added (the contract strips unknown fields).
   */
  strict?: boolean;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const REF = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Readability and validity: no `$schema`/`$id` per component, no safe-integer bounds, no date regex. */
function tidy(node: unknown, strict: boolean, output: boolean): void {
  if (Array.isArray(node)) {
    for (const n of node) tidy(n, strict, output);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const o = node as JsonSchema;
  if (o.minimum === -MAX_SAFE) delete o.minimum;
  if (o.maximum === MAX_SAFE) delete o.maximum;
  if (o.format === 'date-time' && typeof o.pattern === 'string') delete o.pattern;
  if (output && !strict && o.additionalProperties === false) delete o.additionalProperties;
  for (const v of Object.values(o)) tidy(v, strict, output);
  // int | int64 (MinorAmount): one int64 integer.
  const any = o.anyOf as JsonSchema[] | undefined;
  if (any && any.length > 0 && any.every((b) => b.type === 'integer' && Object.keys(b).length <= 2)) {
    delete o.anyOf;
    o.type = 'integer';
    o.format = 'int64';
  }
}

/**
 * Refinements JSON Schema can state but z.toJSONSchema cannot see (they are functions): the
 * player id's length in code points (JSON Schema counts code points too) and its trimmed form.
 */
const REFINEMENTS = new Map<unknown, JsonSchema>([
  [contract.ExternalPlayerId, { maxLength: 64, pattern: '^\\S(?:[\\s\\S]*\\S)?$' }],
]);

function override(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  // int64 amounts: JSON integers written exactly (never quoted, never rounded).
  if ((ctx.zodSchema as { _zod: { def: { type: string } } })._zod.def.type === 'bigint') {
    ctx.jsonSchema.type = 'integer';
    ctx.jsonSchema.format = 'int64';
  }
  const extra = REFINEMENTS.get(ctx.zodSchema);
  if (extra) Object.assign(ctx.jsonSchema, extra);
}

const DOCS = FIELD_DOCS as Record<string, Record<string, string>>;

/** Descriptions from the contract's JSDoc (field-docs.generated.json), by property path. */
function describe(schema: JsonSchema, docs: Record<string, string> | undefined, prefix = ''): void {
  if (!docs) return;
  if (prefix === '' && docs[''] && !schema.description) schema.description = docs[''];
  for (const branch of [...((schema.anyOf as JsonSchema[]) ?? []), schema.items as JsonSchema | undefined]) {
    if (branch && typeof branch === 'object') describe(branch, docs, prefix || '\u0000');
  }
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  if (!props) return;
  const base = prefix === '\u0000' ? '' : prefix;
  for (const [name, prop] of Object.entries(props)) {
    const key = base + name;
    if (docs[key] && !prop.description) prop.description = docs[key];
    describe(prop, docs, `${key}.`);
  }
}

/** The contract export a schema is (by identity), for its JSDoc. */
const contractName = new Map<unknown, string>(
  Object.entries(contract).map(([name, value]): [unknown, string] => [value, name]),
);

/** The JSON Schemas of a set of named zod schemas, cross-referenced as `#/components/schemas/<name>`. */
function componentSchemas(
  named: Record<string, z.ZodType>,
  io: 'input' | 'output',
  strict: boolean,
): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
    override,
  });
  const out: Record<string, JsonSchema> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    const { $schema: _s, $id: _i, ...rest } = schema as JsonSchema;
    tidy(rest, strict, io === 'output');
    describe(rest, DOCS[id] ?? DOCS[contractName.get(named[id]) ?? '']);
    out[id] = rest;
  }
  return out;
}

/** An unnamed (parameter) schema, inline. */
function inlineSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    override,
  }) as JsonSchema;
  tidy(rest, true, false);
  return rest;
}

const nameOf = new Map<z.ZodType, string>([
  ...Object.entries(OUTPUT_SCHEMAS).map(([k, v]): [z.ZodType, string] => [v, k]),
]);
const inputNameOf = new Map<z.ZodType, string>(
  Object.entries(INPUT_SCHEMAS).map(([k, v]): [z.ZodType, string] => [v, k]),
);

function named(map: Map<z.ZodType, string>, schema: z.ZodType, what: string): string {
  const name = map.get(schema);
  if (!name) throw new Error(`${what}: the schema is not a named component (components.ts)`);
  return name;
}

const SIGNED = { RequestTimestamp: [], RequestNonce: [], RequestSignature: [] };
const KEYS = ['ApiKey', 'ApiKeyCompat', 'BearerKey'] as const;

function securityFor(auth: Auth): Record<string, string[]>[] {
  if (auth === 'public') return [];
  const signed = KEYS.map((k) => ({ [k]: [], ...SIGNED }));
  if (auth === 'operator-signed') return signed;
  return [...signed, ...KEYS.map((k) => ({ [k]: [] }))];
}

const UNAVAILABLE_503 =
  'PostgreSQL or Temporal cannot be reached: nothing was half written; retry after Retry-After seconds';

const STANDARD_HEADERS = {
  'x-request-id': { $ref: '#/components/headers/RequestId' },
  traceresponse: { $ref: '#/components/headers/TraceResponse' },
};

function responseBody(op: Operation, status: number): Record<string, unknown> {
  const ok = op.ok[status]!;
  const res: Record<string, unknown> = { description: ok.description, headers: STANDARD_HEADERS };
  const b = ok.body;
  if (!b) return res;
  switch (b.kind) {
    case 'json':
      res.content = {
        'application/json': { schema: REF(named(nameOf, b.schema, `${op.operationId} ${status}`)) },
      };
      break;
    case 'csv':
      res.content = { 'text/csv': { schema: { type: 'string' } } };
      break;
    case 'html':
      res.content = { 'text/html': { schema: { type: 'string' } } };
      break;
    case 'image':
      res.content = Object.fromEntries(
        ['image/svg+xml', 'image/png', 'image/jpeg', 'image/webp'].map((t) => [
          t,
          { schema: { type: 'string', contentMediaType: t } },
        ]),
      );
      break;
    case 'openapi':
      res.content = {
        'application/json': {
          schema: { type: 'object', description: 'An OpenAPI 3.1 document (this one)' },
        },
      };
      break;
    case 'metrics':
      res.content = { 'text/plain': { schema: { type: 'string' } } };
      break;
  }
  return res;
}

function operationObject(op: Operation): Record<string, unknown> {
  const parameters: Record<string, unknown>[] = [];
  for (const [name, p] of Object.entries(op.pathParams ?? {})) {
    parameters.push({
      name,
      in: 'path',
      required: true,
      description: p.description,
      schema: inlineSchema(p.schema),
    });
  }
  if (op.query) {
    const schema = inlineSchema(op.query);
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const docs = DOCS[contractName.get(op.query) ?? ''] ?? {};
    for (const [name, s] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
      parameters.push({
        name,
        in: 'query',
        required: required.has(name),
        ...(docs[name] ? { description: docs[name] } : {}),
        schema: s,
      });
    }
  }
  for (const [name, p] of Object.entries(op.extraQuery ?? {})) {
    if (parameters.some((x) => x.name === name && x.in === 'query')) continue;
    parameters.push({
      name,
      in: 'query',
      required: false,
      description: p.description,
      schema: inlineSchema(p.schema),
    });
  }
  if (op.auth !== 'public') {
    parameters.push(
      { $ref: '#/components/parameters/TraceParent' },
      { $ref: '#/components/parameters/RequestIdIn' },
    );
    if (op.tag === 'provider' || op.tag === 'operator')
      parameters.push({ $ref: '#/components/parameters/OperatorIdHeader' });
  }

  const responses: Record<string, unknown> = {};
  for (const status of Object.keys(op.ok)) responses[status] = responseBody(op, Number(status));
  for (const [status, description] of Object.entries(op.errors)) {
    responses[status] = {
      description,
      headers: STANDARD_HEADERS,
      content: { 'application/json': { schema: REF('ServiceErrorResponse') } },
    };
  }
  // Every API route (not the ops probes, which answer without them or report them in their own
  // body): a dependency that cannot be reached (services/api/src/http/errors.ts).
  const own503 = op.errors[503];
  if (op.tag !== 'ops')
    responses['503'] = {
      description: own503 ? `${own503}; or ${UNAVAILABLE_503.toLowerCase()}` : UNAVAILABLE_503,
      headers: { ...STANDARD_HEADERS, 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
      content: { 'application/json': { schema: REF('ServiceErrorResponse') } },
    };

  const out: Record<string, unknown> = {
    operationId: op.operationId,
    tags: [TAGS[op.tag]],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    security: securityFor(op.auth),
    ...(parameters.length ? { parameters } : {}),
    responses,
    ...(op.idempotent ? { 'x-idempotent': true } : {}),
  };
  if (op.body) {
    out.requestBody =
      'kind' in op.body
        ? {
            required: true,
            description: 'The raw image bytes (PNG, JPEG, WebP or SVG), at most 5 MiB',
            content: {
              'application/octet-stream': { schema: { type: 'string', contentMediaType: 'image/*' } },
            },
          }
        : {
            required: op.body.required,
            content: {
              'application/json': {
                schema: REF(named(inputNameOf, op.body.schema, `${op.operationId} request body`)),
              },
            },
          };
  }
  return out;
}

/** The five operator-hosted wallet endpoints the service calls (OpenAPI 3.1 webhooks). */
function walletWebhooks(): Record<string, unknown> {
  const hooks: Record<string, unknown> = {};
  for (const op of WALLET_CALLBACKS) {
    hooks[`wallet-${op}`] = {
      post: {
        operationId: `wallet${op[0]!.toUpperCase()}${op.slice(1)}`,
        tags: ['Operator-hosted wallet (called by the service)'],
        summary: `POST {wallet_base_url}/${op}`,
        description:
          `Sent by the service with \`transaction_type: ${op}\`. ` +
          'Verify `x-pp-signature` over the exact raw body bytes before parsing (pp-wallet-v1), refuse a timestamp outside your skew window and a nonce seen before; `transaction_id` is the idempotency key: a repeated successful transaction_id answers the original result. ' +
          (op === 'rollback'
            ? 'A rollback carries `original_transaction_id`, the debit it reverses. '
            : op === 'balance'
              ? 'A balance read moves no money (`amount_minor: 0`); its transaction_id is fresh per read. '
              : op === 'debit'
                ? 'A spin that fed a jackpot carries the optional `jackpot_id` and `jackpot_contribution_micros` (informational: `amount_minor` is the whole stake). '
                : op === 'credit'
                  ? "`action_type` says what is paid: a round's win (after its debit), `free_round` (with `campaign_id`; no debit), `jackpot_win` (with `jackpot_id` and `jackpot_level`, after the round's own credit, transaction_id `<round_id>:jackpot:<level>`) or `promo_win` (a tournament prize or prize drop, with `promo_type`, `promo_id` and for a tournament `rank`; round_id is the payout id: no debit and no open round, the player's session may be long over; accept it). "
                  : '') +
          'An uncertain outcome (timeout, 5xx, malformed answer) is retried with the same transaction_id and the same body, byte for byte; a timeout is not a rejection.',
        security: [{ WalletCallbackSignature: [], WalletCallbackTimestamp: [], WalletCallbackNonce: [] }],
        parameters: [
          { $ref: '#/components/parameters/CallbackRequestId' },
          { $ref: '#/components/parameters/TraceParent' },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: REF('WalletCallbackRequest') } },
        },
        responses: {
          200: {
            description: 'Success: `success: true` and the balance as a decimal string',
            content: { 'application/json': { schema: REF('WalletSuccessResponse') } },
          },
          400: {
            description:
              op === 'debit'
                ? 'A refused debit, final: the round is rejected, the debit is never sent again and no credit, cancel or rollback follows. ' +
                  '`error` is the reason. `insufficient_funds` and `limit_reached` (a limit set with the player, which a later or smaller bet may be within) reject that round only. ' +
                  'Player protection: `self_excluded`, `session_time_limit`, `player_blocked`, and any code the service does not know, also stop the session taking bets until you launch the game again ' +
                  '(a new launch URL for the same player, game and currency resumes the session); its wager routes answer 409 meanwhile and the game page tells the player why. ' +
                  'The request faults `invalid_request`, `amount_mismatch`, `unknown_player`, `transaction_conflict`, `transaction_reversed`, `round_cancelled`, `round_settled` and `original_mismatch` reject the round only.'
                : op === 'balance'
                  ? 'The balance cannot be read (e.g. `unknown_player`)'
                  : `A refused ${op} (e.g. \`unknown_player\`): never final, the player is owed it; the service alerts, marks the round stuck and sends the same body again`,
            content: { 'application/json': { schema: REF('WalletErrorResponse') } },
          },
          401: {
            description:
              'Invalid signature, stale timestamp or reused nonce (`invalid_signature`): a configuration fault; the service alerts and retries, never gives money up',
            content: { 'application/json': { schema: REF('WalletErrorResponse') } },
          },
        },
      },
    };
  }
  return hooks;
}

const DESCRIPTION = `The operator integration interface of the game provider: catalog, launch, balance-refresh
signalling, artwork, native history, the operator audit reads, and the signed wallet callbacks the
service sends to the operator's wallet (see *webhooks*). Generated from the service's zod contract.

**Versions.** Interface ${SERVICE_INTERFACE_VERSION}; contract version \`${CONTRACT_VERSION}\` (in the contract read,
LaunchUrlData, wallet callbacks and transaction records). Every money amount is an integer of minor
units (\`amount_unit: ${AMOUNT_UNIT}\`), int64, written as a JSON integer (exact, never quoted).

**Authentication.** Send the API key in \`x-provider-api-key\` (preferred), \`x-api-key\` or
\`Authorization: Bearer\`. In production every keyed request is also signed (\`SIGNED_REQUESTS=required\`);
the operator audit API (\`/api/operator/v1\`) is always signed. Signature headers: \`x-pp-timestamp\`
(Unix seconds, ±300 s by default), \`x-pp-nonce\` (16 to 128 visible ASCII characters, single use per key
across every API process), \`x-pp-signature\`: lower-case hex HMAC-SHA256, keyed by the API key, of

    pp-operator-v1\\n<timestamp>\\n<nonce>\\n<UPPER-CASE METHOD>\\n<exact path and query>\\n<sha256 hex of the raw body>

(an empty body hashes the empty string). Operator keys resolve the operator; \`operator_id\` (or
\`x-operator-id\`) is for provider master keys only. The signature covers no header: on a signed
request \`x-operator-id\` counts only when the same operator is the \`operator_id\` of the signed query
or body (the header alone: 401). A key reads only its own operator's records: a key naming another
operator is 403; a read by id of another operator's record is 404, answered exactly as an id that
does not exist (status, body, the same single query), so no answer tells that an id exists elsewhere
(the spec's "owned record not found").

**Errors.** JSON, usually \`{"detail": "..."}\`; 422 carries \`detail: [{loc, msg, type}]\`. No input is
answered with a 5xx: a value the service could not store or query is a 422 naming it. Date-time
parameters are RFC 3339 with \`Z\` or an offset (any up to ±23:59) naming an instant from
1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z, read in UTC to the microsecond; text must not
contain U+0000 or a lone surrogate; integers stay within their documented range (int64 at most;
an integer amount past 2^53 in JSON is refused rather than rounded). A 5xx means the service itself
(500, a misconfiguration) or a dependency (503) failed.

**Tracing.** Every answer carries \`x-request-id\` (yours when it is a safe token, else a new one) and
\`traceresponse\`; send a W3C \`traceparent\` and the wallet callbacks your request causes carry the
same trace id.

**Compatibility.** Clients must ignore unknown response fields: fields are added without a new
version.`;

const cache = new Map<string, OpenApiDocument>();

/** The document (built once per option set). */
export function buildOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const strict = options.strict ?? false;
  const key = JSON.stringify({ strict });
  const hit = cache.get(key);
  if (hit) return hit;

  const schemas = {
    ...componentSchemas(OUTPUT_SCHEMAS, 'output', strict),
    ...componentSchemas(INPUT_SCHEMAS, 'input', strict),
  };
  // A service error body carries detail, error or message (a zod refinement the schema cannot hold).
  schemas.ServiceErrorResponse = {
    ...schemas.ServiceErrorResponse,
    anyOf: [{ required: ['detail'] }, { required: ['error'] }, { required: ['message'] }],
  };

  const paths: OpenApiDocument['paths'] = {};
  for (const op of OPERATIONS) {
    paths[op.path] ??= {};
    paths[op.path]![op.method] = operationObject(op);
  }

  const apiKeyHelp = 'The API key (operator key, provider master key or provider-admin key).';
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: {
      title: 'Operator Integration Platform',
      version: SERVICE_INTERFACE_VERSION,
      description: DESCRIPTION,
    },
    servers: [{ url: '/', description: 'The service base address ({base_url})' }],
    tags: [
      ...Object.values(TAGS).map((name) => ({ name })),
      { name: 'Operator-hosted wallet (called by the service)' },
    ],
    paths,
    webhooks: walletWebhooks(),
    components: {
      schemas,
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-provider-api-key',
          description: `${apiKeyHelp} Preferred.`,
        },
        ApiKeyCompat: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description: `${apiKeyHelp} Accepted.`,
        },
        BearerKey: { type: 'http', scheme: 'bearer', description: `${apiKeyHelp} As a bearer token.` },
        RequestTimestamp: {
          type: 'apiKey',
          in: 'header',
          name: 'x-pp-timestamp',
          description: 'Unix seconds; outside the allowed skew (300 s by default, either way) is 401.',
        },
        RequestNonce: {
          type: 'apiKey',
          in: 'header',
          name: 'x-pp-nonce',
          description:
            '16 to 128 visible ASCII characters, single use per key (reuse is 401, in every API process).',
        },
        RequestSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'x-pp-signature',
          description:
            'Hex HMAC-SHA256 keyed by the API key of `pp-operator-v1\\n<timestamp>\\n<nonce>\\n<METHOD>\\n<path and query>\\n<sha256 hex of the raw body>`.',
        },
        WalletCallbackSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'x-pp-signature',
          description:
            'Sent by the service: hex HMAC-SHA256 keyed by the operator wallet secret of `pp-wallet-v1\\n<timestamp>\\n<nonce>\\n<exact raw JSON body>`. Verify over the raw body bytes.',
        },
        WalletCallbackTimestamp: {
          type: 'apiKey',
          in: 'header',
          name: 'x-pp-timestamp',
          description: 'Unix seconds; refuse one outside your skew window.',
        },
        WalletCallbackNonce: {
          type: 'apiKey',
          in: 'header',
          name: 'x-pp-nonce',
          description: '32 lower-case hex characters, unique: refuse one seen before.',
        },
      },
      parameters: {
        TraceParent: {
          name: 'traceparent',
          in: 'header',
          required: false,
          description:
            'W3C trace context; the work this request causes (wallet callbacks included) joins the trace.',
          schema: { type: 'string', pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$' },
        },
        RequestIdIn: {
          name: 'x-request-id',
          in: 'header',
          required: false,
          description:
            'Your correlation id, echoed (1 to 128 of `A-Za-z0-9._:-`; otherwise a new one is made).',
          schema: { type: 'string', maxLength: 128 },
        },
        OperatorIdHeader: {
          name: 'x-operator-id',
          in: 'header',
          required: false,
          description:
            'Provider master keys only: the operator (as `operator_id`). Outside the signature: on a signed request it must repeat the `operator_id` of the query or body (the header alone is 401).',
          schema: { type: 'string' },
        },
        CallbackRequestId: {
          name: 'x-pp-request-id',
          in: 'header',
          required: true,
          description: 'The attempt’s request id (`<transaction_id>#<attempt>` for money movements).',
          schema: { type: 'string' },
        },
      },
      headers: {
        RequestId: { description: 'The request id (yours or a new one)', schema: { type: 'string' } },
        RetryAfter: {
          description: 'Seconds to wait before retrying (a dependency could not be reached)',
          schema: { type: 'integer', minimum: 1 },
        },
        TraceResponse: {
          description: 'W3C trace context of the service’s span for this request',
          schema: { type: 'string' },
        },
      },
    },
  };
  cache.set(key, doc);
  return doc;
}
