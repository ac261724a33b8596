// sys.dm_exec_sessions and sys.dm_exec_connections from the server's open sessions, the columns DBA
// tools read first ("sys.dm_exec_sessions (Transact-SQL)", "sys.dm_exec_connections (Transact-SQL)").
// Every login here holds VIEW SERVER STATE's view of its own sessions; the sandbox shows all of them.

/** One open session of the server, as the views show it. */
export interface ServerSession {
  spid: number;
  login: string;
  hostName: string;
  appName: string;
  database: string;
  databaseId: number;
  loginTime: string;
  transactionCount: number;
}

const text = (v: string) => `'${v.replaceAll("'", "''")}'`;

/** The view as a subquery with typed columns (an empty server still has the columns). */
export function sessionViewSql(
  view: 'sys.dm_exec_sessions' | 'sys.dm_exec_connections',
  sessions: ServerSession[],
): string {
  const row = (s: ServerSession | null) => {
    const v = <T>(pick: (s: ServerSession) => T, empty: string) => (s ? pick(s) : empty);
    if (view === 'sys.dm_exec_sessions')
      return (
        `SELECT ${v((x) => x.spid, 'NULL')} AS session_id, ${v((x) => text(x.loginTime), 'NULL')} AS login_time, ` +
        `${v((x) => text(x.hostName), 'NULL')} AS host_name, ${v((x) => text(x.appName), 'NULL')} AS program_name, ` +
        `${v((x) => text(x.login), 'NULL')} AS login_name, ${v((x) => text(x.login), 'NULL')} AS original_login_name, ` +
        `${v(() => "'sleeping'", 'NULL')} AS status, 1 AS is_user_process, ${v((x) => x.databaseId, 'NULL')} AS database_id, ` +
        `${v((x) => x.transactionCount, 'NULL')} AS open_transaction_count`
      );
    return (
      `SELECT ${v((x) => x.spid, 'NULL')} AS session_id, ${v((x) => text(x.loginTime), 'NULL')} AS connect_time, ` +
      `'TCP' AS net_transport, 'TSQL' AS protocol_type, ${v(() => '1946157060', 'NULL')} AS protocol_version, ` +
      `'SQL' AS auth_scheme, 'FALSE' AS encrypt_option, '127.0.0.1' AS client_net_address`
    );
  };
  const rows = sessions.length ? sessions.map(row) : [`${row(null)} WHERE 0`];
  return `(/* catalog */ ${rows.join(' UNION ALL ')})`;
}
