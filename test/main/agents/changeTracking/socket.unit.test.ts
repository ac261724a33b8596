import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectWithoutDelay } from '../../../../main/agents/drivers/mssql/socket';

const servers: net.Server[] = [];
const listen = async () => {
  const server = net.createServer((s) => s.end());
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
};
const closedPort = async () => {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
};
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

describe('the SQL Server socket', () => {
  it('connects to the configured host by name, and to the address a routing answer names', async () => {
    const port = await listen();
    const byName = await connectWithoutDelay('localhost', port)();
    expect(byName.remotePort).toBe(port);
    byName.destroy();
    const routed = await connectWithoutDelay('configured.invalid', 1)({ host: '127.0.0.1', port });
    expect([routed.remoteAddress, routed.remotePort]).toEqual(['127.0.0.1', port]);
    routed.destroy();
  });

  it('fails with the system error that names the refused port', async () => {
    const port = await closedPort();
    await expect(connectWithoutDelay('127.0.0.1', port)()).rejects.toThrow(`ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('gives up when the connect timeout aborts', async () => {
    const port = await listen();
    const timeout = new AbortController();
    timeout.abort(new Error('connect timeout 15000 ms'));
    await expect(
      connectWithoutDelay('127.0.0.1', port)(undefined, undefined, timeout.signal),
    ).rejects.toThrow('connect timeout 15000 ms');
  });
});
