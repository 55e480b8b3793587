import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

export interface LocalTls {
  certFile: string;
  keyFile: string;
}

/**
 * A self-signed certificate for 127.0.0.1 and localhost (P-256, 825 days), made once with the
 * machine's openssl under `dir` and reused. The cluster stack serves the API and the sandbox
 * wallet over HTTPS with it, so production's HTTPS-only rules hold on one machine; its own
 * processes trust it through NODE_EXTRA_CA_CERTS, and a browser is told to accept it.
 */
export function ensureLocalTls(dir: string): LocalTls {
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  if (existsSync(certFile) && existsSync(keyFile)) return { certFile, keyFile };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '825',
        '-subj',
        '/CN=opi local cluster stack',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        keyFile,
        '-out',
        certFile,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
  } catch (err) {
    throw new Error(
      `could not make a local TLS certificate with openssl (${(err as Error).message.split('\n')[0]}): ` +
        'install openssl, or set TLS_CERT_FILE and TLS_KEY_FILE to a certificate for 127.0.0.1',
    );
  }
  return { certFile, keyFile };
}
