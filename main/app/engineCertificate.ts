// The engine's own TLS certificate, for an engine told to listen beyond loopback without one given:
// made once (self-signed, P-256, two years), kept in the data folder (the key readable by its owner
// only) and reused at every start, so that clients that pinned it keep trusting it.
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export interface EngineCertificate {
  cert: string;
  key: string;
  /** SHA-256 of the certificate, as `AA:BB:…`: what a client pins and a user compares. */
  fingerprint256: string;
}

export const fingerprintOf = (pem: string): string => new X509Certificate(pem).fingerprint256;

/** A certificate and key from files the user gave. */
export function certificateFromFiles(certFile: string, keyFile: string): EngineCertificate {
  const cert = readFileSync(certFile, 'utf8');
  return { cert, key: readFileSync(keyFile, 'utf8'), fingerprint256: fingerprintOf(cert) };
}

/** The engine's self-signed certificate in `dataDir/tls/`, made on first use for these host names. */
export async function ownCertificate(
  dataDir: string,
  host: string,
): Promise<EngineCertificate & { made: boolean }> {
  const dir = join(dataDir, 'tls');
  const certFile = join(dir, 'engine.crt');
  const keyFile = join(dir, 'engine.key');
  if (existsSync(certFile) && existsSync(keyFile))
    return { ...certificateFromFiles(certFile, keyFile), made: false };
  // Loaded only here: the certificate maker is no part of an engine that does not need it.
  const { generate } = await import('selfsigned');
  const names = [
    ...new Set([host, hostname(), 'localhost'].filter((n) => n && n !== '0.0.0.0' && n !== '::')),
  ];
  const made = await generate([{ name: 'commonName', value: `CDC Admin engine on ${hostname()}` }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(Date.now() - 60_000),
    notAfterDate: new Date(Date.now() + 730 * 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: names.map((n) => (/^[\d.]+$|:/.test(n) ? { type: 7, ip: n } : { type: 2, value: n })),
      },
    ],
  });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(keyFile, made.private, { mode: 0o600 });
  writeFileSync(certFile, made.cert, { mode: 0o644 });
  return { cert: made.cert, key: made.private, fingerprint256: fingerprintOf(made.cert), made: true };
}
