/**
 * Trusting a certificate that is not in the public roots: the cluster stack's local self-signed
 * one, or an environment's private CA (GOLIVE_CA_FILE). The suite's Node processes trust it through
 * NODE_EXTRA_CA_CERTS (read once, when a process starts); Chromium is told to accept a certificate
 * chain holding one of exactly these public keys (--ignore-certificate-errors-spki-list), which
 * keeps its other checks (host name, expiry) and accepts nothing else, unlike ignoreHTTPSErrors.
 */
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM file (a bundle may hold several). */
export function readCertificates(file: string): X509Certificate[] {
  const pem = readFileSync(file, 'utf8');
  const certs = (pem.match(PEM_CERT) ?? []).map((c) => new X509Certificate(c));
  if (!certs.length) throw new Error(`${file} holds no PEM certificate`);
  return certs;
}

/** Base64 SHA-256 of a certificate's SubjectPublicKeyInfo (DER): the form Chromium's list takes. */
export function spkiHash(cert: X509Certificate): string {
  return createHash('sha256')
    .update(cert.publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64');
}

/** The Chromium flag that accepts a chain holding any certificate of the file, or none without one. */
export function chromiumTrustArgs(caFile: string | undefined): string[] {
  if (!caFile) return [];
  const hashes = [...new Set(readCertificates(caFile).map(spkiHash))];
  return [`--ignore-certificate-errors-spki-list=${hashes.join(',')}`];
}
