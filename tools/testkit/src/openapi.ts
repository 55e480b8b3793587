import assert from 'node:assert/strict';
import type { OpenApiDocument } from '@opi/api/openapi/document';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/*
 * Validates real HTTP exchanges against the OpenAPI document with a standard JSON Schema
 * validator (ajv, draft 2020-12): the status must be documented for the operation, the body must
 * match the documented schema. Used by the conformance test and the operator SDK's tests.
 */

// ajv-formats is CommonJS with a default export; under NodeNext it arrives as the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

const escapePointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

export interface Exchange {
  method: string;
  /** The path as sent (query included). */
  url: string;
  status: number;
  contentType: string | null;
  /** Parsed JSON when the answer is JSON. */
  json?: unknown;
  text?: string;
  /** The JSON request body sent, if any. */
  requestJson?: unknown;
}

export interface DocumentValidator {
  /** The document path template an actual path matches (`/games/{symbol}`), or undefined. */
  template(path: string): string | undefined;
  /** Asserts that the exchange agrees with the document; returns `METHOD template status`. */
  check(x: Exchange): string;
  /** Validates a value against a component schema (`WalletCallbackRequest`); the errors, or null. */
  component(name: string, value: unknown): string | null;
  /** Validates a webhook (wallet callback) request body and answer. */
  checkWebhook(name: string, requestJson: unknown, status: number, responseJson: unknown): string;
}

export function documentValidator(doc: OpenApiDocument): DocumentValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addSchema(doc as object, 'doc');
  const compiled = new Map<string, ReturnType<Ajv2020['compile']>>();
  const validateAt = (pointer: string, value: unknown): string | null => {
    let v = compiled.get(pointer);
    if (!v) {
      v = ajv.compile({ $ref: `doc#${pointer}` });
      compiled.set(pointer, v);
    }
    return v(value) ? null : ajv.errorsText(v.errors, { separator: '\n  ' });
  };

  // Literal paths before templated ones (`reconciliation.csv` before `{round_id}` style matches).
  const templates = Object.keys(doc.paths)
    .map((t) => ({
      t,
      params: (t.match(/\{/g) ?? []).length,
      re: new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }))
    .sort((a, b) => a.params - b.params);
  const template = (path: string) => templates.find((x) => x.re.test(path.split('?')[0]!))?.t;

  return {
    template,
    check(x) {
      const path = x.url.split('?')[0]!;
      const t = template(path);
      assert.ok(t, `${x.method} ${path}: no such path in the document`);
      const method = x.method.toLowerCase();
      const op = doc.paths[t]![method] as { responses: Record<string, Record<string, unknown>> } | undefined;
      assert.ok(op, `${x.method} ${t}: the method is not documented`);
      const label = `${x.method} ${t} ${x.status}`;
      const res = op.responses[String(x.status)];
      assert.ok(
        res,
        `${label}: status ${x.status} is not documented (documented: ${Object.keys(op.responses)})`,
      );
      const base = `/paths/${escapePointer(t)}/${method}`;
      if (x.requestJson !== undefined && x.status < 300) {
        const rb = (op as Record<string, unknown>).requestBody as
          | { content?: Record<string, unknown> }
          | undefined;
        if (rb?.content?.['application/json']) {
          const err = validateAt(`${base}/requestBody/content/application~1json/schema`, x.requestJson);
          assert.equal(err, null, `${label}: the request body sent does not match the document:\n  ${err}`);
        }
      }
      const content = res.content as Record<string, unknown> | undefined;
      if (!content) {
        assert.ok(!x.text, `${label}: the document says no body, the service sent one`);
        return label;
      }
      const type = (x.contentType ?? '').split(';')[0]!.trim();
      assert.ok(
        type in content,
        `${label}: content type ${type} is not documented (${Object.keys(content)})`,
      );
      if (type === 'application/json') {
        assert.notEqual(x.json, undefined, `${label}: not JSON: ${x.text?.slice(0, 200)}`);
        const err = validateAt(`${base}/responses/${x.status}/content/application~1json/schema`, x.json);
        assert.equal(
          err,
          null,
          `${label}: the body does not match the document:\n  ${err}\n  body: ${JSON.stringify(x.json).slice(0, 600)}`,
        );
      }
      return label;
    },
    component(name, value) {
      return validateAt(`/components/schemas/${escapePointer(name)}`, value);
    },
    checkWebhook(name, requestJson, status, responseJson) {
      const base = `/webhooks/${escapePointer(name)}/post`;
      const hook = (doc.webhooks as Record<string, { post: { responses: Record<string, unknown> } }>)[name];
      assert.ok(hook, `webhook ${name} is not documented`);
      const label = `webhook ${name} ${status}`;
      const reqErr = validateAt(`${base}/requestBody/content/application~1json/schema`, requestJson);
      assert.equal(reqErr, null, `${label}: the callback body does not match the document:\n  ${reqErr}`);
      assert.ok(hook.post.responses[String(status)], `${label}: status not documented`);
      const resErr = validateAt(`${base}/responses/${status}/content/application~1json/schema`, responseJson);
      assert.equal(resErr, null, `${label}: the wallet answer does not match the document:\n  ${resErr}`);
      return label;
    },
  };
}
