// The sandbox's TLS: a CA of its own and a server certificate it signs for localhost and 127.0.0.1.
// The CA file is what a user (or a test) names in certificatePath, so TLS is checked for real.
import { generate } from 'selfsigned';

export interface SandboxCertificates {
  caCert: string;
  cert: string;
  key: string;
}

export async function makeSandboxCertificates(days = 365): Promise<SandboxCertificates> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(Date.now() + days * 86_400_000);
  const common = {
    keyType: 'ec' as const,
    curve: 'P-256' as const,
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
  };
  const ca = await generate([{ name: 'commonName', value: 'CDC Admin sandbox CA' }], {
    ...common,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const server = await generate([{ name: 'commonName', value: 'localhost' }], {
    ...common,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  return { caCert: ca.cert, cert: server.cert, key: server.private };
}
