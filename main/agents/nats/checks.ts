// Checks of a NATS JetStream target: the sign-on, JetStream on the account, and the stream (there and
// fitting, or one the account may create), each with what to do when it fails.
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConfiguration, NatsHostCredentials } from '../../../shared/agents/nats';
import type { CheckResult } from '../../../shared/controlApi';
import { connectionFailed, failed, passed } from '../checkResults';
import { AgentConnectionError } from '../connectionError';
import { describeNatsError, openNats } from './connection';
import { payloadChecks } from './payloadCheck';
import { streamInfo, streamMisfit } from './stream';
import type { TableShape } from '../source';

export async function checkNatsTarget(
  credentials: NatsHostCredentials,
  configuration: NatsConfiguration,
): Promise<CheckResult[]> {
  let nc;
  try {
    nc = await openNats(credentials, 'cdc-admin check');
  } catch (e) {
    if (e instanceof AgentConnectionError) return [connectionFailed(e)];
    throw e;
  }
  const server = nc.info;
  const results: CheckResult[] = [
    passed(
      'connection',
      `Connected to NATS ${server?.version ?? ''} at ${nc.getServer()}${credentials.username ? ` as "${credentials.username}"` : ''}; messages up to ${server?.max_payload ?? '?'} bytes.`,
    ),
  ];
  try {
    let jsm;
    try {
      jsm = await jetstreamManager(nc);
      await jsm.getAccountInfo();
      results.push(passed('jetstream', 'JetStream is enabled for the account, and its API answers.'));
    } catch (e) {
      results.push(
        failed(
          'jetstream',
          `JetStream does not answer for this account: ${describeNatsError(e)}.`,
          'Start nats-server with JetStream (-js, or a jetstream block in its configuration), and enable it for the account; the user must be allowed to publish to $JS.API.>.',
        ),
      );
      return results;
    }
    const info = await streamInfo(jsm, configuration.stream);
    if (!info) {
      results.push(
        passed(
          'stream',
          `The stream ${configuration.stream} does not exist yet: the runner creates it at start (subjects ${configuration.subjectPrefix} and ${configuration.subjectPrefix}.>, ${configuration.replicas} replica${configuration.replicas > 1 ? 's' : ''}).`,
        ),
      );
      return results;
    }
    const misfit = streamMisfit(info, configuration);
    results.push(
      misfit
        ? failed('stream', misfit, 'Fix the stream as said, or choose another stream or subject prefix.')
        : passed(
            'stream',
            `The stream ${configuration.stream} takes the events (${info.state.messages} messages, ${info.state.bytes} bytes, ${info.config.num_replicas} replica${info.config.num_replicas > 1 ? 's' : ''}).`,
          ),
    );
    return results;
  } finally {
    await nc.close();
  }
}

/**
 * Each table's largest event against the servers' max_payload. The origin only shapes the source
 * block, whose size hardly differs between sources: SQL Server's is taken (the larger).
 */
export async function checkNatsPayload(
  credentials: NatsHostCredentials,
  configuration: NatsConfiguration,
  shapes: readonly TableShape[],
): Promise<CheckResult[]> {
  const nc = await openNats(credentials, 'cdc-admin check');
  try {
    const maxPayload = nc.info?.max_payload ?? 1024 * 1024;
    return payloadChecks(
      shapes,
      configuration,
      { connector: 'sqlserver', server: 'check', database: 'check' },
      maxPayload,
    );
  } finally {
    await nc.close();
  }
}
