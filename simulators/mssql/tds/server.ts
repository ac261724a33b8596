// The TDS server: one state machine per connection (MS-TDS 3.3.5). SQL work goes to a host, which
// answers in statements; this file turns them into tokens and packets.
import { createServer, type Server, type Socket } from 'node:net';
import { createSecureContext, type SecureContext, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { parseLogin7, type Login7 } from './login7';
import { isMidResult, type Fault, type FaultQueue } from '../../faults';
import { cutMidResult, DEADLOCK_VICTIM, requestText } from './faults';
import { DEFAULT_PACKET_SIZE, MessageReader, PACKET, PacketStream, type Message } from './packet';
import { buildPreloginResponse, ENCRYPT, negotiateEncryption, parsePrelogin } from './prelogin';
import { parseRpc, parseSqlBatch, parseTransactionManager, type RpcCall } from './requests';
import type { HostSession, StatementResult, TdsHost } from './hostSession';
import { startServerTls } from './tlsTransport';
import { DONE_STATUS, ENV, TOKEN, TokenWriter } from './tokens';

export interface TdsServerOptions {
  host: TdsHost;
  port?: number;
  /** PEM certificate and key: with them the server offers encryption, as SQL Server does. */
  tls?: { cert: string; key: string };
  forceEncryption?: boolean;
  /** Fault drills: one is taken before each request once logged in; 'drop' closes the socket unanswered. */
  faults?: FaultQueue;
}

export interface TdsServer {
  port: number;
  close(): Promise<void>;
  /** Connections open now (tests use it to see a connection drop). */
  connections(): number;
  /** Every connection goes and the port refuses connections for `downMs`, then listens again. */
  restart(downMs: number): Promise<void>;
}

export async function startTdsServer(options: TdsServerOptions): Promise<TdsServer> {
  // TLS inside PRELOGIN (TDS 7.x) goes to 1.2 at most, as SQL Server's does; strict TDS 8.0 allows 1.3.
  const context = options.tls ? createSecureContext({ ...options.tls, maxVersion: 'TLSv1.2' }) : undefined;
  const strictContext = options.tls ? createSecureContext({ ...options.tls }) : undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    // As SQL Server does (TCP_NODELAY): a response's last small packet leaves at once, not after the
    // client's delayed acknowledgement of the one before (a 40 ms stall per multi-packet answer).
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    new Connection(socket, options, context, strictContext);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  await listen(options.port ?? 0);
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    connections: () => sockets.size,
    close,
    restart: async (downMs) => {
      await close();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await listen(port);
    },
  };
}

type Phase = 'prelogin' | 'login' | 'ready' | 'closed';

class Connection {
  private phase: Phase = 'prelogin';
  private reader = new MessageReader();
  /** The response being streamed, until send() ends it. */
  private response?: PacketStream;
  private out: Socket | TLSSocket;
  private packetSize = DEFAULT_PACKET_SIZE;
  private session: HostSession | undefined;
  private queue: Message[] = [];
  private running: AbortController | undefined;
  private attention = false;

  private strict = false;

  constructor(
    private readonly socket: Socket,
    private readonly options: TdsServerOptions,
    private readonly context: SecureContext | undefined,
    strictContext: SecureContext | undefined,
  ) {
    this.out = socket;
    // TDS 8.0 (strict encryption) opens with a TLS handshake record (0x16) instead of PRELOGIN (0x12).
    socket.once('data', (first: Buffer) => {
      if (strictContext && first[0] === 0x16) {
        this.strict = true;
        const tls = startServerTls(socket, strictContext, first, true);
        tls.on('data', (chunk: Buffer) => this.receive(chunk));
        tls.on('error', () => this.close());
        this.out = tls;
        return;
      }
      socket.on('data', (chunk: Buffer) => this.receive(chunk));
      this.receive(first);
    });
    socket.on('error', () => this.close());
    socket.on('close', () => this.close());
  }

  private receive(chunk: Buffer): void {
    let messages: Message[];
    try {
      messages = this.reader.push(chunk);
    } catch {
      this.close();
      return;
    }
    for (const m of messages) {
      if (m.type === PACKET.ATTENTION) {
        this.onAttention();
        continue;
      }
      if (this.phase === 'prelogin' && m.type === PACKET.PRELOGIN) {
        this.onPrelogin(m);
        continue;
      }
      this.queue.push(m);
    }
    void this.drain();
  }

  /**
   * Ends the response: its last bytes after any streamed already, in one message. `endOfMessage` false
   * leaves it unfinished (a fault drill's connection dropping mid-answer).
   */
  private send(type: number, data: Buffer, endOfMessage = true): void {
    const response = this.response ?? this.packets(type);
    this.response = undefined;
    if (this.phase !== 'closed') response.end(data, endOfMessage);
  }

  /** Rows of a large result on their way while the rest is written: the response's first packets. */
  private stream(data: Buffer): void {
    this.response ??= this.packets(PACKET.TABULAR_RESULT);
    if (this.phase !== 'closed') this.response.add(data);
  }

  private packets(type: number): PacketStream {
    return new PacketStream(type, this.packetSize, 0, (bytes) => this.out.write(bytes));
  }

  private onPrelogin(m: Message): void {
    const client = parsePrelogin(m.data);
    const decided = negotiateEncryption(
      client.encryption,
      this.context !== undefined,
      this.options.forceEncryption ?? false,
    );
    this.send(PACKET.TABULAR_RESULT, buildPreloginResponse(decided));
    this.phase = 'login';
    if (!this.strict && this.context && (decided === ENCRYPT.ON || decided === ENCRYPT.REQ)) {
      const tls = startServerTls(this.socket, this.context, Buffer.alloc(0));
      tls.on('data', (chunk: Buffer) => this.receive(chunk));
      tls.on('error', () => this.close());
      this.out = tls;
    }
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    const m = this.queue.shift();
    if (!m) return;
    this.running = new AbortController();
    try {
      await this.handle(m, this.running.signal);
    } catch (error) {
      // A request the sandbox failed on is answered with an error, as SQL Server answers its own
      // internal errors; the connection stays (only a broken protocol closes it, in handle).
      if (this.phase === 'ready') this.answerInternalError(error);
      else this.close();
    } finally {
      this.running = undefined;
      this.attention = false;
    }
    void this.drain();
  }

  private async handle(m: Message, signal: AbortSignal): Promise<void> {
    if (this.phase === 'login') {
      if (m.type !== PACKET.LOGIN7) return this.close();
      return this.onLogin(parseLogin7(m.data));
    }
    if (this.phase !== 'ready' || !this.session) return this.close();
    const fault = this.options.faults?.take(requestText(m));
    // As a network failure or a server restart: the socket goes, the request unanswered.
    if (fault?.kind === 'drop') return this.close();
    if (fault?.kind === 'stall') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    const midResult = isMidResult(fault) ? fault : undefined;
    if (m.resetConnection) this.session.reset();
    const w = new TokenWriter((bytes) => this.stream(bytes));
    if (m.type === PACKET.SQL_BATCH) {
      const results = await this.session.batch(parseSqlBatch(m.data), signal);
      if (this.attention) return this.endInterrupted();
      const cut = midResult && cutMidResult(results);
      if (midResult && cut) return this.answerMidResult(w, midResult, cut, false);
      this.writeStatements(w, results, TOKEN.DONE, true);
    } else if (m.type === PACKET.RPC) {
      let calls: RpcCall[];
      try {
        calls = parseRpc(m.data);
      } catch {
        // SQL Server answers a malformed RPC stream with 8016 and keeps the connection.
        w.message('error', {
          number: 8016,
          state: 1,
          class: 16,
          message:
            'The incoming tabular data stream (TDS) remote procedure call (RPC) protocol stream is incorrect.',
        });
        this.send(PACKET.TABULAR_RESULT, w.done(TOKEN.DONE, DONE_STATUS.ERROR).take());
        return;
      }
      for (const call of calls) {
        const result = await this.session.rpc(call, signal);
        if (this.attention) return this.endInterrupted();
        const cut = midResult && call === calls.at(-1) && cutMidResult(result.statements);
        if (midResult && cut) return this.answerMidResult(w, midResult, cut, true);
        this.writeStatements(w, result.statements, TOKEN.DONEINPROC, false);
        w.returnStatus(result.returnStatus ?? 0);
        result.outputs?.forEach((o, i) => w.returnValue(i, o.name, o.type, o.value));
        const failed = result.statements.some((s) => s.failed);
        w.done(
          TOKEN.DONEPROC,
          (failed ? DONE_STATUS.ERROR : 0) | (call === calls.at(-1) ? 0 : DONE_STATUS.MORE),
          0,
          0xe0,
        );
      }
    } else if (m.type === PACKET.TRANSACTION_MANAGER) {
      this.writeStatements(
        w,
        this.session.transactionManager(parseTransactionManager(m.data)),
        TOKEN.DONE,
        true,
      );
    } else {
      return this.close();
    }
    if (midResult) this.options.faults?.putBack(midResult);
    this.send(PACKET.TABULAR_RESULT, w.take());
  }

  /** A fault in the middle of the request's last result set: half its rows, then the error or the drop. */
  private answerMidResult(
    w: TokenWriter,
    fault: Fault,
    { before, cut }: NonNullable<ReturnType<typeof cutMidResult>>,
    inProc: boolean,
  ): void {
    this.writeStatements(w, before, inProc ? TOKEN.DONEINPROC : TOKEN.DONE, false);
    for (const msg of cut.messages ?? []) w.message(msg.kind, msg);
    const set = cut.resultSet ?? { columns: [], rows: [] };
    w.colMetadata(set.columns);
    for (const row of set.rows) w.row(set.columns, row);
    if (fault.kind === 'drop-mid-result') {
      // The rows so far leave in packets without end-of-message; the socket goes before the rest.
      this.send(PACKET.TABULAR_RESULT, w.take(), false);
      return this.close();
    }
    w.message('error', DEADLOCK_VICTIM);
    const rolledBack = this.session?.abortTransaction();
    if (rolledBack) w.envChangeBytes(ENV.ROLLBACK_TRAN, Buffer.alloc(0), rolledBack);
    if (inProc)
      w.done(TOKEN.DONEINPROC, DONE_STATUS.ERROR | DONE_STATUS.MORE).done(
        TOKEN.DONEPROC,
        DONE_STATUS.ERROR,
        0,
        0xe0,
      );
    else w.done(TOKEN.DONE, DONE_STATUS.ERROR);
    this.send(PACKET.TABULAR_RESULT, w.take());
  }

  private writeStatements(
    w: TokenWriter,
    results: StatementResult[],
    doneToken: number,
    finalIsLast: boolean,
  ): void {
    if (results.length === 0) {
      if (finalIsLast) w.done(doneToken, 0);
      return;
    }
    results.forEach((r, i) => {
      for (const msg of r.messages ?? []) w.message(msg.kind, msg);
      if (r.databaseChange) w.envChange(ENV.DATABASE, r.databaseChange.to, r.databaseChange.from);
      if (r.transaction?.kind === 'begin')
        w.envChangeBytes(ENV.BEGIN_TRAN, r.transaction.descriptor, Buffer.alloc(0));
      if (r.transaction?.kind === 'commit')
        w.envChangeBytes(ENV.COMMIT_TRAN, Buffer.alloc(0), r.transaction.descriptor);
      if (r.transaction?.kind === 'rollback')
        w.envChangeBytes(ENV.ROLLBACK_TRAN, Buffer.alloc(0), r.transaction.descriptor);
      if (r.resultSet) {
        w.colMetadata(r.resultSet.columns);
        for (const row of r.resultSet.rows) w.row(r.resultSet.columns, row);
      }
      const last = i === results.length - 1;
      const status =
        (last && finalIsLast ? 0 : DONE_STATUS.MORE) |
        (r.rowCount !== undefined ? DONE_STATUS.COUNT : 0) |
        (r.failed ? DONE_STATUS.ERROR : 0);
      w.done(doneToken, status, r.rowCount ?? 0);
    });
  }

  private onLogin(login: Login7): void {
    const w = new TokenWriter();
    const outcome = this.options.host.login(login);
    if (!outcome.ok) {
      w.message('error', outcome.error).done(TOKEN.DONE, DONE_STATUS.ERROR);
      this.send(PACKET.TABULAR_RESULT, w.take());
      return;
    }
    this.session = outcome.session;
    // The client's packet size is granted within SQL Server's limits (512 to 32767).
    const size = Math.min(Math.max(login.packetSize || DEFAULT_PACKET_SIZE, 512), 32767);
    w.envChange(ENV.DATABASE, outcome.session.database, 'master')
      .message('info', {
        number: 5701,
        state: 2,
        class: 0,
        message: `Changed database context to '${outcome.session.database}'.`,
      })
      .collation()
      .envChange(ENV.LANGUAGE, 'us_english', '')
      .message('info', {
        number: 5703,
        state: 1,
        class: 0,
        message: 'Changed language setting to us_english.',
      })
      .loginAck()
      .envChange(ENV.PACKET_SIZE, String(size), String(DEFAULT_PACKET_SIZE))
      .done(TOKEN.DONE, DONE_STATUS.FINAL);
    this.send(PACKET.TABULAR_RESULT, w.take());
    this.packetSize = size;
    this.phase = 'ready';
  }

  /** ATTENTION (MS-TDS 2.2.1.7): stop the running request; the answer is a DONE with the ATTN bit. */
  private onAttention(): void {
    if (this.running) {
      this.attention = true;
      this.running.abort();
      return;
    }
    this.queue = [];
    this.sendAttentionDone();
  }

  /**
   * An interrupted request's response ends first; the acknowledgment follows as a message of its own
   * (MS-TDS 2.2.1.7), which is what a client waits for after it sent ATTENTION.
   */
  private endInterrupted(): void {
    this.send(PACKET.TABULAR_RESULT, new TokenWriter().done(TOKEN.DONE, DONE_STATUS.FINAL).take());
    this.sendAttentionDone();
  }

  private answerInternalError(error: unknown): void {
    const w = new TokenWriter();
    w.message('error', {
      number: 8630,
      state: 1,
      class: 16,
      message: `Internal Query Processor Error: The query processor encountered an unexpected error during execution (${error instanceof Error ? error.message : String(error)}).`,
    });
    this.send(PACKET.TABULAR_RESULT, w.done(TOKEN.DONE, DONE_STATUS.ERROR).take());
  }

  private sendAttentionDone(): void {
    this.send(PACKET.TABULAR_RESULT, new TokenWriter().done(TOKEN.DONE, DONE_STATUS.ATTN).take());
  }

  private close(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.running?.abort();
    this.session?.close();
    this.out.destroy();
    this.socket.destroy();
  }
}
