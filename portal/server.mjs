import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { parseArgs } from 'node:util';
import { parseTrustedProxies, resolveClientIp } from './client-address.mjs';

/*
 * The staff portal's server (`npm start`, the stack, the image): Next's production build behind a
 * plain Node HTTP server, which decides the client's address before Next sees the request. Route
 * handlers cannot see the socket, and Next keeps whatever X-Forwarded-For the request brought, so
 * the header is overwritten here with the one resolved address: the socket's peer, or, only when
 * that peer is one of TRUSTED_PROXIES, the first untrusted hop of its X-Forwarded-For. The portal
 * forwards it to the API (login limits, staff audit log). Same flags as `next start`:
 *   node server.mjs [--port 3000] [--hostname 0.0.0.0]
 * With TLS_CERT_FILE and TLS_KEY_FILE (both, as the platform's services read them) it serves HTTPS
 * itself (the cluster stack gives it the local certificate the API uses), tells Next the request
 * came over https (X-Forwarded-Proto, so the session cookie is `__Host-` and Secure) and sends
 * Strict-Transport-Security (max-age HSTS_MAX_AGE_SECONDS, default one year) on every answer.
 */
const { values } = parseArgs({
  options: {
    port: { type: 'string', short: 'p' },
    hostname: { type: 'string', short: 'H' },
  },
});
const port = Number(values.port ?? process.env.PORT ?? 3000);
const hostname = values.hostname;
process.env.NODE_ENV ??= 'production';

let trusted;
let tls;
let hsts;
try {
  trusted = parseTrustedProxies(process.env.TRUSTED_PROXIES);
  const { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile, HSTS_MAX_AGE_SECONDS: maxAge } = process.env;
  if (!certFile !== !keyFile)
    throw new Error('TLS_CERT_FILE, TLS_KEY_FILE: set both (HTTPS) or neither (HTTP)');
  if (certFile && keyFile) tls = { cert: readFileSync(certFile), key: readFileSync(keyFile) };
  const seconds = maxAge === undefined || maxAge === '' ? 31_536_000 : Number(maxAge);
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 63_072_000)
    throw new Error('HSTS_MAX_AGE_SECONDS: an integer from 0 to 63072000');
  hsts = `max-age=${seconds}`;
} catch (err) {
  process.stderr.write(`portal configuration: ${err.message}\n`);
  process.exit(1);
}

const { default: next } = await import('next');
const app = next({ dev: false, dir: import.meta.dirname, hostname: hostname ?? 'localhost', port });
await app.prepare();
const handle = app.getRequestHandler();

const listener = (req, res) => {
  const client = resolveClientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], trusted);
  if (client) req.headers['x-forwarded-for'] = client;
  else delete req.headers['x-forwarded-for'];
  if (tls) {
    // This socket is TLS: the origin is https whatever a header says.
    req.headers['x-forwarded-proto'] = 'https';
    res.setHeader('Strict-Transport-Security', hsts);
  }
  handle(req, res).catch((err) => {
    console.error(err);
    if (!res.headersSent) res.statusCode = 500;
    res.end();
  });
};
const server = tls ? createHttpsServer(tls, listener) : createServer(listener);
server.on('error', (err) => {
  console.error(`portal: ${err.message}`);
  process.exit(1);
});
server.listen(port, hostname, () => {
  const where = hostname ?? 'every interface';
  console.log(
    `staff portal ready on ${where}:${port} (${tls ? 'https' : 'http'}; trusted proxies: ${trusted.size || 'none'})`,
  );
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    app.close().finally(() => process.exit(0));
  });
}
