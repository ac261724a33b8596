// The messages the simulated IBM i answers with: CPF ids for commands, SQLCODE/SQLSTATE for SQL, in
// the wording of IBM's message files (QCPFMSG, QSQLMSG). One table, so a wording is fixed in one place.
import { IbmiError } from '../../../lib/ibmi/connection';

const CPF: Record<string, string> = {
  CPD0030: 'Command &1 in library &2 not found.',
  CPD0043: 'Keyword &1 not valid for this command.',
  CPD0072: 'Parameter &1 required.',
  CPD0078: "Value '&1' for parameter &2 not a valid name.",
  CPD0084: "Value '&1' for parameter &2 not a valid value.",
  CPF0001: 'Error found on &1 command.',
  CPF2105: 'Object &1 in &2 type *&3 not found.',
  CPF2110: 'Library &1 not found.',
  CPF2111: 'Library &1 already exists.',
  CPF2182: 'Not authorized to library &1.',
  CPF2112: 'Object &1 in &2 type *&3 already exists.',
  CPF2189: 'Not authorized to object &1 in &2 type *&3.',
  CPF2204: 'User profile &1 not found.',
  CPF22E2: 'Password not correct for user profile &1.',
  CPF22E3: 'User profile &1 is disabled.',
  CPF3012: 'File &1 in library &2 not found.',
  CPF3130: 'Member &2 already in use.',
  CPF3141: 'Member &2 not found.',
  CPF3142: 'File &1 in library &2 not found.',
  CPF3213: 'Members for file &1 more than maximum allowed.',
  CPF3782: 'File &1 in &2 not restored.',
  CPF3223: 'Member &3 already exists in file &1.',
  CPF5813: 'File &1 in library &2 already exists.',
  CPF7010: 'Object &1 in &2 type *&3 already exists.',
  CPF7030: 'Object &1 in library &2 already journaled.',
  CPF7031: 'Cannot allocate member &3 file &1 in &2.',
  CPF7032: 'Object &1 in &2 of type *&3 not journaled.',
  CPF7040: 'Journal receiver &1 in &2 attached to journal.',
  CPF7304: 'File &1 in &2 not changed: &3.',
  CPF7053: 'Values for RCVRNG parameter not valid; reason code &1.',
  CPF7054: 'FROM and TO values not valid.',
  CPF7062: 'No entries converted or received from journal &1 in library &2.',
  CPF7065: 'Entry type (ENTTYP) not valid for journal code (JRNCDE).',
  CPF70D9: 'Sequence number cannot be reset; commitment control is active.',
  CPF7302: 'File &1 not created in library &2.',
  CPF9801: 'Object &2 in library &3 not found.',
  CPF9802: 'Not authorized to object &2 in &3.',
  CPF9810: 'Library &1 not found.',
  CPF9812: 'File &1 in library &2 not found.',
  CPF9815: 'Member &5 file &2 in library &3 not found.',
  CPF9820: 'Not authorized to use library &1.',
};

function fill(text: string, args: readonly string[]): string {
  return text.replace(/&(\d)/g, (_, n: string) => args[Number(n) - 1] ?? '');
}

/** A CL refusal; `args` fill the message's &1, &2 … as IBM's message file numbers them. */
export function cpf(id: string, ...args: string[]): IbmiError {
  const text = CPF[id];
  if (!text) throw new Error(`No text for ${id}.`);
  return new IbmiError(id, fill(text, args));
}

const SQL: Record<number, { state: string; text: string }> = {
  [-84]: { state: '42612', text: 'SQL statement not allowed.' },
  [-104]: { state: '42601', text: 'Token &1 was not valid. Valid tokens: &2.' },
  [-117]: { state: '42802', text: 'Statement contains wrong number of values.' },
  [-171]: { state: '42815', text: 'Argument &1 of function &2 not valid.' },
  [-199]: { state: '42601', text: 'Keyword &1 not expected. Valid tokens: &2.' },
  [-204]: { state: '42704', text: '&1 in &2 type *&3 not found.' },
  [-205]: { state: '42703', text: 'Column &1 not in table &2 in &3.' },
  [-206]: { state: '42703', text: 'Column or global variable &1 not found.' },
  [-302]: { state: '22001', text: 'Conversion error on host variable or parameter &1.' },
  [-313]: { state: '07001', text: 'Number of host variables not valid.' },
  [-404]: { state: '22001', text: 'Value for column or variable &1 too long.' },
  [-406]: { state: '22003', text: 'Conversion error on assignment to column &1.' },
  [-420]: { state: '22018', text: 'Character in CAST argument not valid.' },
  [-798]: { state: '428C9', text: 'Value cannot be specified for GENERATED ALWAYS column &1.' },
  [-407]: { state: '23502', text: 'Null values not allowed in column or variable &1.' },
  [-551]: { state: '42501', text: 'Not authorized to object &1 in &2 type *&3.' },
  [-552]: { state: '42502', text: 'Not authorized to &1.' },
  [-190]: { state: '42837', text: 'Attributes of column &1 not compatible.' },
  [-196]: { state: '42817', text: 'Column &1 cannot be dropped.' },
  [-612]: { state: '42711', text: '&1 is a duplicate column name.' },
  [-604]: { state: '42611', text: 'Attributes of column, distinct type or variable &1 not valid.' },
  [-601]: { state: '42710', text: '&1 in &2 type *&3 already exists.' },
  [-803]: { state: '23505', text: 'Duplicate key value specified.' },
  [-180]: { state: '22007', text: 'Syntax of date, time, or timestamp value not valid.' },
  [-181]: { state: '22007', text: 'Value in date, time, or timestamp string not valid.' },
  [-802]: { state: '22023', text: 'Data conversion or data mapping error.' },
  [-666]: { state: '57005', text: 'SQL query exceeds specified time limit or storage limit.' },
  [-7008]: { state: '55019', text: '&1 in &2 not valid for operation. Reason code &3.' },
  [-7021]: { state: '57017', text: 'Conversion of data from CCSID &1 to CCSID &2 not supported.' },
  [-443]: { state: '38501', text: 'Trigger program or external routine detected an error.' },
};

/** An SQL refusal: messageId `SQL0204` and the like, SQLSTATE in `sqlState`. */
export class SqlError extends IbmiError {
  constructor(
    readonly sqlCode: number,
    readonly sqlState: string,
    text: string,
  ) {
    super(`SQL${String(Math.abs(sqlCode)).padStart(4, '0')}`, text);
    this.name = 'SqlError';
  }
}

export function sqlError(code: number, ...args: string[]): SqlError {
  const m = SQL[code];
  if (!m) throw new Error(`No text for SQLCODE ${code}.`);
  return new SqlError(code, m.state, fill(m.text, args));
}
