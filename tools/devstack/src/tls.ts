import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

export interface LocalTls {
  certFile: string;
  keyFile: string;
}

/** What a local certificate names, how long it lasts, and what to do when openssl cannot make it. */
export interface CertificateRequest {
  /** The subject, `/CN=...`. */
  subject: string;
  /** The subjectAltName entries: `IP:127.0.0.1`, `DNS:localhost`, ... */
  altNames: string[];
  days: number;
  /** The advice of the error when openssl fails, after "install openssl, or". */
  otherwise: string;
}

/** The cluster stack's: 127.0.0.1 and localhost, 825 days. */
export const CLUSTER_CERTIFICATE: Readonly<CertificateRequest> = Object.freeze({
  subject: '/CN=opi local cluster stack',
  altNames: ['IP:127.0.0.1', 'DNS:localhost'],
  days: 825,
  otherwise: 'set TLS_CERT_FILE and TLS_KEY_FILE to a certificate for 127.0.0.1',
});

/**
 * A self-signed certificate (P-256) as `request` names it, made once with the machine's openssl
 * under `dir` (cert.pem, key.pem) and reused. The cluster stack serves the API and the sandbox
 * wallet over HTTPS with its own (CLUSTER_CERTIFICATE), so production's HTTPS-only rules hold on
 * one machine; its own processes trust it through NODE_EXTRA_CA_CERTS, and a browser is told to
 * accept it. `npm run compose:local` makes one for its balancers' names too.
 */
export function ensureLocalTls(dir: string, request: CertificateRequest = CLUSTER_CERTIFICATE): LocalTls {
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
        String(request.days),
        '-subj',
        request.subject,
        '-addext',
        `subjectAltName=${request.altNames.join(',')}`,
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
        `install openssl, or ${request.otherwise}`,
    );
  }
  return { certFile, keyFile };
}
