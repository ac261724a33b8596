// A connection failure the user can act on, for every agent type: what happened and what to do.
/** Never carries the password. */
export class AgentConnectionError extends Error {
  constructor(
    message: string,
    readonly remedy: string,
    readonly kind: 'certificate-file' | 'unreachable' | 'login' | 'database' | 'tls' | 'driver' | 'other',
  ) {
    super(message);
  }
}
