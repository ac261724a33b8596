// An mssql pool that keeps the connection its connect() signs on to test the settings, as the first
// connection it hands out, where mssql closes it and signs on again at the first request. A sign-on is
// four round trips (TCP, prelogin, login, the session's SET batch): on a link 30 ms long, 120 ms a pool.
import sql from 'mssql';

/** What every mssql pool implements for its driver (lib/tedious/connection-pool.js), outside its types. */
interface DriverPool {
  _poolCreate(this: sql.ConnectionPool): Promise<object>;
  _poolDestroy(this: sql.ConnectionPool, connection: object): Promise<void>;
  _poolValidate(this: sql.ConnectionPool, connection: object): boolean | Promise<boolean>;
  _close(this: sql.ConnectionPool, callback: (error?: Error | null) => void): void;
}

const driver = sql.ConnectionPool.prototype as unknown as DriverPool;

export class KeptSignOnPool extends sql.ConnectionPool {
  /** connect()'s test connection, once signed on: the first the pool hands out. */
  private signedOn: object | null = null;
  private spare: object | null = null;
  /** A spare no request took is closed as the pool closes an idle connection: after its idle time. */
  private expiry: NodeJS.Timeout | undefined;
  private readonly idleMs: number;

  constructor(config: sql.config) {
    super(config);
    this.idleMs = config.pool?.idleTimeoutMillis ?? 30_000;
  }

  /** The spare, no longer the pool's to keep (null when there is none). */
  private takeSpare(): object | null {
    clearTimeout(this.expiry);
    const spare = this.spare;
    this.spare = null;
    return spare;
  }

  _poolCreate(): Promise<object> {
    const spare = this.takeSpare();
    if (!spare)
      return driver._poolCreate.call(this).then((connection) => {
        this.signedOn ??= connection;
        return connection;
      });
    // A session the server ended meanwhile is closed and replaced, never handed out.
    return Promise.resolve(driver._poolValidate.call(this, spare)).then((usable) =>
      usable ? spare : driver._poolDestroy.call(this, spare).then(() => this._poolCreate()),
    );
  }

  _poolDestroy(connection: object): Promise<void> {
    // Only connect()'s own destroy of its test connection: a close destroys it for good.
    if (connection === this.signedOn && this.spare === null && this.connecting) {
      this.spare = connection;
      this.expiry = setTimeout(() => {
        const unused = this.takeSpare();
        if (unused) void driver._poolDestroy.call(this, unused).catch(() => undefined);
      }, this.idleMs).unref();
      return Promise.resolve();
    }
    return driver._poolDestroy.call(this, connection);
  }

  _close(callback: (error?: Error | null) => void): void {
    const spare = this.takeSpare();
    if (!spare) return driver._close.call(this, callback);
    void driver._poolDestroy
      .call(this, spare)
      .catch(() => undefined)
      .then(() => driver._close.call(this, callback));
  }
}
