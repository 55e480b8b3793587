import { createServer } from 'node:http';
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
try {
  trusted = parseTrustedProxies(process.env.TRUSTED_PROXIES);
} catch (err) {
  process.stderr.write(`portal configuration: ${err.message}\n`);
  process.exit(1);
}

const { default: next } = await import('next');
const app = next({ dev: false, dir: import.meta.dirname, hostname: hostname ?? 'localhost', port });
await app.prepare();
const handle = app.getRequestHandler();

const server = createServer((req, res) => {
  const client = resolveClientIp(req.socket.remoteAddress, req.headers['x-forwarded-for'], trusted);
  if (client) req.headers['x-forwarded-for'] = client;
  else delete req.headers['x-forwarded-for'];
  handle(req, res).catch((err) => {
    console.error(err);
    if (!res.headersSent) res.statusCode = 500;
    res.end();
  });
});
server.on('error', (err) => {
  console.error(`portal: ${err.message}`);
  process.exit(1);
});
server.listen(port, hostname, () => {
  const where = hostname ?? 'every interface';
  console.log(`staff portal ready on ${where}:${port} (trusted proxies: ${trusted.size || 'none'})`);
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    app.close().finally(() => process.exit(0));
  });
}
