// A simulated SQL Server in a process of its own, for benchmarks that compare the engine with a raw
// read: the simulator does not share the bench's thread. Prints its port as one JSON line, then serves
// until its stdin closes (the parent ended) or it is killed.
import { startSandboxSqlServer } from '../simulators/mssql';
import { BENCH_LOGIN } from './sandboxSource';

const sandbox = await startSandboxSqlServer({ logins: [BENCH_LOGIN], databases: ['Sales'] });
process.stdout.write(`${JSON.stringify({ port: sandbox.port })}\n`);
process.stdin.resume();
process.stdin.on('end', () => void sandbox.close().then(() => process.exit(0)));
