import type { JsonSchema, OpenApiDocument } from './document.js';
import { type SdkTarball, sdkDownloadPath } from './sdk-download.js';

/*
 * The readable reference (GET /docs): one self-contained HTML page rendered on the server from the
 * OpenAPI document. No script, no external style sheet, font or CDN; every text is escaped.
 */

const esc = (s: unknown) =>
  String(s ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');

/** A little Markdown: paragraphs, indented code blocks, `code` and **bold**. Escapes first. */
function md(text: string | undefined): string {
  if (!text) return '';
  const inline = (s: string) =>
    esc(s)
      .replace(/`([^`]+)`/g, '<code>$1</code>')
      .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
      .replace(/\*([^*]+)\*/g, '<em>$1</em>');
  return text
    .split(/\n{2,}/)
    .map((block) =>
      /^ {4}/.test(block)
        ? `<pre><code>${esc(block.replace(/^ {4}/gm, ''))}</code></pre>`
        : `<p>${inline(block.replace(/\n/g, ' '))}</p>`,
    )
    .join('\n');
}

const anchor = (kind: string, name: string) => `${kind}-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;

function refName(ref: unknown): string | undefined {
  return typeof ref === 'string' ? ref.replace('#/components/schemas/', '') : undefined;
}

/** A one-line type: `string`, `Game[]`, `integer (int64)`, `"a" | "b"`, a link for references. */
function typeOf(s: JsonSchema | undefined): string {
  if (!s) return 'any';
  const ref = refName(s.$ref);
  if (ref) return `<a href="#${anchor('schema', ref)}">${esc(ref)}</a>`;
  if (s.const !== undefined) return `<code>${esc(JSON.stringify(s.const))}</code>`;
  if (Array.isArray(s.enum)) return s.enum.map((v) => `<code>${esc(JSON.stringify(v))}</code>`).join(' | ');
  const union = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (union) return union.map(typeOf).join(' | ');
  const t = s.type;
  if (Array.isArray(t)) return t.map((x) => esc(x)).join(' | ');
  if (t === 'array') return `${typeOf(s.items as JsonSchema)}[]`;
  if (t === 'object' && !s.properties) {
    const add = s.additionalProperties;
    return add && typeof add === 'object' ? `map of ${typeOf(add as JsonSchema)}` : 'object';
  }
  let out = esc(t ?? 'any');
  if (s.format) out += ` (${esc(s.format)})`;
  return out;
}

function constraints(s: JsonSchema): string {
  const parts: string[] = [];
  for (const k of [
    'minLength',
    'maxLength',
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'pattern',
    'default',
  ]) {
    if (s[k] !== undefined) parts.push(`${k} ${esc(JSON.stringify(s[k]))}`);
  }
  return parts.length ? `<div class="c">${parts.join(' · ')}</div>` : '';
}

/** A property table; inline objects nest. */
function table(schema: JsonSchema, depth = 0): string {
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  if (!props) {
    return `<p class="t">${typeOf(schema)}</p>${constraints(schema)}${md(schema.description as string)}`;
  }
  const required = new Set((schema.required as string[]) ?? []);
  const rows = Object.entries(props).map(([name, p]) => {
    const nested =
      depth < 3 && p.type === 'object' && p.properties
        ? table(p, depth + 1)
        : depth < 3 && p.type === 'array' && (p.items as JsonSchema)?.properties
          ? table(p.items as JsonSchema, depth + 1)
          : '';
    return `<tr><td><code>${esc(name)}</code>${required.has(name) ? ' <span class="req">required</span>' : ''}</td><td>${typeOf(p)}${constraints(p)}</td><td>${md(p.description as string)}${nested}</td></tr>`;
  });
  return `<table><thead><tr><th>field</th><th>type</th><th>notes</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function parametersTable(params: JsonSchema[], doc: OpenApiDocument): string {
  if (!params.length) return '';
  const resolved = params.map((p) => {
    const ref = typeof p.$ref === 'string' ? p.$ref.split('/').pop()! : undefined;
    return ref ? ((doc.components.parameters as Record<string, JsonSchema>)[ref] ?? p) : p;
  });
  const rows = resolved.map(
    (p) =>
      `<tr><td><code>${esc(p.name)}</code> <span class="in">${esc(p.in)}</span>${p.required ? ' <span class="req">required</span>' : ''}</td><td>${typeOf(p.schema as JsonSchema)}${constraints((p.schema as JsonSchema) ?? {})}</td><td>${md(p.description as string)}</td></tr>`,
  );
  return `<h4>Parameters</h4><table><thead><tr><th>name</th><th>type</th><th>notes</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function content(c: unknown): string {
  if (!c || typeof c !== 'object') return '';
  return Object.entries(c as Record<string, { schema?: JsonSchema }>)
    .map(([type, m]) => `<div class="ct"><code>${esc(type)}</code> ${m.schema ? typeOf(m.schema) : ''}</div>`)
    .join('');
}

/** A JSON request body's fields, inline (the schema is also under Schemas). */
function bodyTable(body: JsonSchema, doc: OpenApiDocument): string {
  const json = (body.content as Record<string, { schema?: JsonSchema }> | undefined)?.['application/json'];
  const name = refName(json?.schema?.$ref);
  const schema = name ? doc.components.schemas[name] : undefined;
  return schema ? table(schema) : '';
}

function securityText(sec: unknown): string {
  const reqs = sec as Record<string, unknown>[] | undefined;
  if (!reqs || reqs.length === 0) return '<span class="auth public">public</span>';
  const signedOnly = reqs.every((r) => 'RequestSignature' in r || 'WalletCallbackSignature' in r);
  if (reqs.some((r) => 'WalletCallbackSignature' in r))
    return '<span class="auth">signed by the service (pp-wallet-v1)</span>';
  return signedOnly
    ? '<span class="auth">API key, signed (pp-operator-v1) always</span>'
    : '<span class="auth">API key; signed (pp-operator-v1) when SIGNED_REQUESTS=required (production)</span>';
}

function operation(method: string, path: string, op: JsonSchema, doc: OpenApiDocument, kind: string): string {
  const responses = Object.entries(op.responses as Record<string, JsonSchema>)
    .map(
      ([status, r]) =>
        `<tr><td><span class="st s${esc(status[0])}">${esc(status)}</span></td><td>${md(r.description as string)}${content(r.content)}</td></tr>`,
    )
    .join('');
  const body = op.requestBody as JsonSchema | undefined;
  return `<section class="op" id="${anchor(kind, String(op.operationId))}">
<h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
<p class="sum">${esc(op.summary)} ${securityText(op.security)}</p>
${md(op.description as string)}
${parametersTable((op.parameters as JsonSchema[]) ?? [], doc)}
${body ? `<h4>Request body${body.required ? '' : ' (optional)'}</h4>${md(body.description as string)}${content(body.content)}${bodyTable(body, doc)}` : ''}
<h4>Responses</h4><table><tbody>${responses}</tbody></table>
</section>`;
}

/** The operator SDK's section: its tarball's link, SHA-256 and install commands, or that it is not there yet. */
function sdkSection(sdk: Pick<SdkTarball, 'name' | 'version' | 'sha256' | 'bytes'> | undefined): string {
  const head = '<h2 id="sdk">Operator SDK</h2>';
  const about =
    '<p>A typed TypeScript client for this API (requests signed with pp-operator-v1, safe retries) and a verifier for the wallet callbacks (pp-wallet-v1) for Koa, Express and <code>node:http</code>. Node.js 20.11 or later, ESM; no dependencies. Its README is in the tarball.</p>';
  if (!sdk) {
    return `${head}${about}<p class="sdk-missing">The SDK tarball is not available on this server yet (it is built with the service); reload this page in a moment.</p>`;
  }
  const href = sdkDownloadPath(sdk.name);
  return `${head}${about}
<p><a href="${esc(href)}" download>${esc(sdk.name)}</a> <span class="c">version ${esc(sdk.version)}, ${esc((sdk.bytes / 1024).toFixed(1))} KiB</span></p>
<p>SHA-256 <code class="sha">${esc(sdk.sha256)}</code></p>
<pre><code>sha256sum ${esc(sdk.name)}            # compare with the SHA-256 above
npm install ./${esc(sdk.name)}       # in your project

import { createOperatorClient } from '@opi/operator-sdk';</code></pre>`;
}

/** The page for `doc`, with the operator SDK's download when its tarball is there. */
export function renderReferencePage(
  doc: OpenApiDocument,
  sdk?: Pick<SdkTarball, 'name' | 'version' | 'sha256' | 'bytes'>,
): string {
  const info = doc.info as { title: string; version: string; description: string };
  const byTag = new Map<string, string[]>();
  const nav = new Map<string, string[]>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = ((op.tags as string[]) ?? ['Other'])[0]!;
      byTag.set(tag, [...(byTag.get(tag) ?? []), operation(method, path, op, doc, 'op')]);
      nav.set(tag, [
        ...(nav.get(tag) ?? []),
        `<li><a href="#${anchor('op', String(op.operationId))}"><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> ${esc(path)}</a></li>`,
      ]);
    }
  }
  const hooks = Object.entries((doc.webhooks ?? {}) as Record<string, Record<string, JsonSchema>>).map(
    ([name, h]) =>
      operation('post', `{wallet_base_url}/${name.replace(/^wallet-/, '')}`, h.post!, doc, 'hook'),
  );
  const schemas = Object.entries(doc.components.schemas).map(
    ([name, s]) =>
      `<section class="schema" id="${anchor('schema', name)}"><h3>${esc(name)}</h3>${s.properties ? md(s.description as string) : ''}${table(s)}</section>`,
  );
  const sections = [...byTag.entries()]
    .map(([tag, ops]) => `<h2 id="${anchor('tag', tag)}">${esc(tag)}</h2>${ops.join('\n')}`)
    .join('\n');
  const navHtml = [...nav.entries()]
    .map(
      ([tag, items]) => `<h5><a href="#${anchor('tag', tag)}">${esc(tag)}</a></h5><ul>${items.join('')}</ul>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(info.title)} ${esc(info.version)} — API reference</title>
<style>
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1c2430;background:#fff;display:flex}
nav{position:sticky;top:0;height:100vh;overflow:auto;width:300px;flex:none;background:#f4f6f9;border-right:1px solid #dde2ea;padding:16px;box-sizing:border-box;font-size:13px}
nav ul{list-style:none;padding:0;margin:0 0 12px}nav li a{display:block;padding:2px 0;color:#1c2430;text-decoration:none;word-break:break-all}
nav h5{margin:12px 0 4px;font-size:12px;text-transform:uppercase;letter-spacing:.04em}nav h5 a{color:#516074;text-decoration:none}
main{padding:24px 40px;max-width:1100px;min-width:0}
h1{margin-top:0}h2{border-bottom:2px solid #dde2ea;padding-bottom:4px;margin-top:48px}
.op,.schema{border:1px solid #dde2ea;border-radius:8px;padding:4px 18px 12px;margin:16px 0}
.op h3{font-size:16px}code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f1f3f6;padding:1px 4px;border-radius:3px}
pre{background:#f1f3f6;padding:10px;border-radius:6px;overflow:auto}pre code{background:none;padding:0}
table{border-collapse:collapse;width:100%;margin:6px 0 10px;font-size:14px}td,th{border-top:1px solid #e6e9ef;padding:5px 8px;text-align:left;vertical-align:top}
th{font-size:12px;color:#516074;text-transform:uppercase}td p{margin:0 0 4px}
.m{display:inline-block;min-width:52px;text-align:center;border-radius:4px;color:#fff;font:600 12px ui-monospace,monospace;padding:2px 4px}
.get{background:#2f6fbd}.post{background:#2e8b57}.put{background:#b7791f}.patch{background:#8a5cc2}.delete{background:#c0392b}
.st{font:600 13px ui-monospace,monospace;padding:1px 6px;border-radius:4px}.s2{background:#e3f4ea}.s3{background:#eef1f5}.s4{background:#fdf0e1}.s5{background:#fbe4e4}
.req{color:#c0392b;font-size:12px}.in{color:#516074;font-size:12px}.c{color:#516074;font-size:12px}
.auth{font-size:12px;background:#eef1f5;border-radius:10px;padding:1px 8px;margin-left:6px}.auth.public{background:#e3f4ea}
.sum{font-weight:600}.ct{margin:2px 0}.sha{word-break:break-all}
@media (max-width:800px){body{display:block}nav{position:static;width:auto;height:auto}main{padding:16px}}
</style></head>
<body><nav><strong>${esc(info.title)}</strong> <span class="c">${esc(info.version)}</span>
<p><a href="/api/provider/v1/openapi.json">openapi.json</a> · <a href="#sdk">Operator SDK</a></p>${navHtml}
<h5><a href="#webhooks">Operator-hosted wallet</a></h5><h5><a href="#schemas">Schemas</a></h5></nav>
<main><h1>${esc(info.title)} <span class="c">${esc(info.version)}</span></h1>
${md(info.description)}
${sdkSection(sdk)}
${sections}
<h2 id="webhooks">Operator-hosted wallet (called by the service)</h2>
${hooks.join('\n')}
<h2 id="schemas">Schemas</h2>
${schemas.join('\n')}
</main></body></html>`;
}
