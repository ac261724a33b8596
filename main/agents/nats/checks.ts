// Checks of a NATS JetStream target: the sign-on, JetStream on the account, and the stream (there and
// fitting, or one the account may create), each with what to do when it fails.
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { NatsConfiguration, NatsHostCredentials } from '../../../shared/agents/nats';
import type { CheckResult } from '../../../shared/controlApi';
import { connectionFailed, failed, passed } from '../checkResults';
import { AgentConnectionError } from '../connectionError';
import { describeNatsError, openNats } from './connection';
import { measuredValues, payloadChecks, unboundedColumns } from './payloadCheck';
import { streamInfo, streamMisfit } from './stream';
import type { TableShape } from '../source';
import type { ColumnsOf, LargestValue } from '../spi';

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
    results.push(await publishCheck(nc, credentials, configuration));
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
 * Whether the user may publish the events: a publish to `<prefix>.=probe` that expects a stream no
 * stream can be named, so a permitted one is refused by JetStream (10060) and nothing is stored, while
 * a forbidden one is refused by the server (permissions violation). No answer at all: the user may not
 * subscribe to the reply inbox that acknowledgements come back on.
 */
async function publishCheck(
  nc: NatsConnection,
  credentials: NatsHostCredentials,
  c: NatsConfiguration,
): Promise<CheckResult> {
  const who = credentials.username ? `"${credentials.username}"` : 'this sign-on';
  const subjects = `${c.subjectPrefix} and ${c.subjectPrefix}.>`;
  try {
    await jetstream(nc).publish(`${c.subjectPrefix}.=probe`, new Uint8Array(0), {
      expect: { streamName: '=probe=' },
      timeout: 5000,
    });
  } catch (e) {
    const error = e as { message?: string; name?: string; code?: unknown };
    if (/expected stream does not match/i.test(error.message ?? ''))
      return passed(
        'publish-permission',
        `${who} may publish to ${subjects}, and acknowledgements come back.`,
      );
    // No stream takes the subjects yet (the runner creates it): the server let the publish through, and
    // the client tells the silence as "no responders" (JetStream itself answered the check before).
    if (
      error.name === 'NoRespondersError' ||
      error.name === 'JetStreamNotEnabled' ||
      /no responders|jetstream is not enabled/i.test(error.message ?? '')
    )
      return passed('publish-permission', `${who} may publish to ${subjects} (no stream takes them yet).`);
    if (/permissions violation/i.test(error.message ?? ''))
      return failed(
        'publish-permission',
        `${who} may not publish to ${subjects}: ${error.message}.`,
        `Allow it in the server's authorization: publish to "${c.subjectPrefix}", "${c.subjectPrefix}.>" and "$JS.API.>", subscribe to "_INBOX.>".`,
      );
    return failed(
      'publish-permission',
      `A probe publish to ${c.subjectPrefix}.=probe had no answer (${describeNatsError(e)}).`,
      `Allow ${who} to subscribe to "_INBOX.>": acknowledgements come back there.`,
    );
  }
  return failed(
    'publish-permission',
    `A probe publish to ${c.subjectPrefix}.=probe was stored: a stream takes it whatever it is named.`,
    'Check the streams that take the prefix (nats stream ls).',
  );
}

/**
 * Each table's largest event against the servers' max_payload. The origin only shapes the source
 * block, whose size hardly differs between sources: SQL Server's is taken (the larger).
 */
export async function checkNatsPayload(
  credentials: NatsHostCredentials,
  configuration: NatsConfiguration,
  shapes: readonly TableShape[],
  measure: (asked: readonly ColumnsOf[]) => Promise<LargestValue[]>,
): Promise<CheckResult[]> {
  const nc = await openNats(credentials, 'cdc-admin check');
  let maxPayload: number;
  try {
    maxPayload = nc.info?.max_payload ?? 1024 * 1024;
  } finally {
    await nc.close();
  }
  // Only the columns whose type sets no bound are scanned at the source: the others' width is known.
  const asked = shapes
    .map((shape) => ({ ref: shape.ref, columns: unboundedColumns(shape) }))
    .filter((a) => a.columns.length > 0);
  const measured =
    asked.length === 0
      ? measuredValues([])
      : await measure(asked).then(
          (found) => measuredValues(found),
          (error: unknown) => measuredValues([], (error as Error).message),
        );
  return payloadChecks(
    shapes,
    configuration,
    { connector: 'sqlserver', server: 'check', database: 'check' },
    maxPayload,
    measured,
  );
}
