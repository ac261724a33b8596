import { describe, expect, it } from 'vitest';
import { agentTypes } from '../../../shared/agents';
import { initialValues, problemsByField, toBody } from '../../../renderer/store/formValues';

const ct = agentTypes['change-tracking'].sections;
const jr = agentTypes.journal.sections;

describe('form values', () => {
  it('start from the declared defaults', () => {
    expect(initialValues(ct.hostCredentials)).toEqual({
      connectionName: '',
      host: '',
      port: '1433',
      databaseName: '',
      username: '',
      password: '',
      maxConnectionsCount: '10',
      maskSalt: '',
      enableTls: false,
      certificatePath: '',
    });
    expect(initialValues(jr.configuration)).toEqual({
      dateFormat: '',
      timeFormat: '',
      invalidDecimals: 'keep-row-aside',
      invalidDates: 'keep-row-aside',
      invalidText: 'keep-row-aside',
      textOrder: 'logical',
      userCharacters: '',
      provenanceJob: '',
      provenanceJobUser: '',
      provenanceJobNumber: '',
      provenanceProgram: '',
      provenanceUserProfile: '',
      provenanceOperation: '',
      provenanceCommitTime: '',
      provenancePosition: '',
      provenanceTransaction: '',
      snapshotMode: 'initial',
      snapshotChunkRows: '10000',
      startAt: '',
      stopAt: '',
      heartbeatSeconds: '0',
      droppedColumns: 'keep',
      onTableError: 'suspend-table',
      maxExceptions: '1000',
      schemaChanges: 'propagate',
      droppedTables: 'keep',
    });
  });

  it('turn typed numbers into numbers and keep anything else as typed, so the rule names it', () => {
    const body = toBody(ct.hostCredentials, {
      ...initialValues(ct.hostCredentials),
      port: ' 70000 ',
      maxConnectionsCount: '1e3',
    });
    expect(body.port).toBe(70000);
    expect(body.maxConnectionsCount).toBe('1e3');
  });

  it('leave empty inputs out, so defaults and "required" apply', () => {
    expect(toBody(ct.hostCredentials, initialValues(ct.hostCredentials))).toEqual({
      port: 1433,
      maxConnectionsCount: 10,
      enableTls: false,
    });
  });

  it('send null for an empty inheritable format, and numbers for block sizes', () => {
    expect(toBody(jr.configuration, { dateFormat: '', timeFormat: 'hms' })).toEqual({
      dateFormat: null,
      timeFormat: 'hms',
    });
    expect(
      toBody(jr.hostCredentials, { ...initialValues(jr.hostCredentials), blockSize: '512' }).blockSize,
    ).toBe(512);
  });

  it('map problems to fields by pointer, first one wins', () => {
    const p = (pointer: string, message: string) => ({ pointer, message, received: '', rule: '' });
    const map = problemsByField(
      [
        p('/hostCredentials/port', 'first'),
        p('/hostCredentials/port', 'second'),
        p('/configuration/x', 'other'),
      ],
      ct.hostCredentials,
    );
    expect(Object.keys(map)).toEqual(['port']);
    expect(map.port?.message).toBe('first');
  });
});
