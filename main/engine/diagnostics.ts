// Builds and reads diagnostics bundles (zip). Sources are already redacted; as a second net, every
// secret the engine and the app hold is decrypted in memory and scrubbed: from every value before it is
// serialised, then from every file's text in each form a secret takes (raw, JSON-escaped, URL-encoded).
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import type { z } from 'zod';
import {
  DIAGNOSTICS_FILES,
  DIAGNOSTICS_FORMAT,
  diagnosticsBacklogSchema,
  diagnosticsChecksSchema,
  diagnosticsConfigurationSchema,
  diagnosticsEventsSchema,
  diagnosticsExceptionsSchema,
  diagnosticsManifestSchema,
  diagnosticsProfilesSchema,
  diagnosticsVerifySchema,
  LOGS_FOLDER,
  MAX_BUNDLE_BYTES,
  type DiagnosticsView,
} from '../../shared/diagnostics';
import type { EngineDeps } from './operationKit';
import { scrubText, scrubValue } from '../platform/redact';
import { maskException } from './store/exceptions';

const RECENT_EVENTS = 1000;
/** Kept rows per agent a bundle shows (masked): enough to see what was refused and why. */
const DIAGNOSTICS_EXCEPTIONS = 100;
const BACKLOG_WINDOW_MS = 24 * 60 * 60 * 1000;
const LOG_TAIL_BYTES = 1024 * 1024;
export const REDACTED = '[redacted]';

export interface BundleExtras {
  source: 'app' | 'engine';
  versions: Record<string, string>;
  /** The app's engine profiles, tokens left out. */
  profiles?: { id: string; name: string; baseUrl: string; tokenSet: boolean }[];
  logs?: { name: string; text: string }[];
  /** More secrets to scrub (the app's profile tokens). */
  secrets?: string[];
}

/** Every agent secret the engine holds, decrypted for the scrub only. */
export async function engineSecrets(deps: EngineDeps): Promise<string[]> {
  const found: string[] = [];
  for (const row of deps.repo.sealedSecrets()) {
    try {
      const secrets = JSON.parse(
        await deps.secrets.open(row.secretsSealed, `agent:${row.pipelineId}/${row.id}:hostCredentials`),
      ) as Record<string, unknown>;
      for (const value of Object.values(secrets)) if (typeof value === 'string') found.push(value);
    } catch {
      // A secret that no longer opens cannot be scrubbed by value; it is not in any source either.
    }
  }
  return found;
}

/** Every form of every secret in `text` replaced (see platform/redact.ts), whatever its length. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  return scrubText(text, secrets, REDACTED);
}

export function tail(text: string, bytes = LOG_TAIL_BYTES): string {
  return text.length <= bytes ? text : text.slice(text.length - bytes);
}

export async function buildDiagnosticsBundle(deps: EngineDeps, extras: BundleExtras): Promise<Uint8Array> {
  const now = deps.now();
  const secrets = [...(await engineSecrets(deps)), ...(extras.secrets ?? [])];
  const json = (value: unknown) => JSON.stringify(scrubValue(value, secrets, REDACTED), null, 2) + '\n';
  const pipelines = deps.repo
    .pipelines()
    .map((p) => ({ ...p, agents: deps.repo.agents(p.id), entities: deps.repo.entities(p.id) }));
  const checks = deps.repo.lastChecks().map((c) => ({
    pipelineId: c.pipelineId,
    agentId: c.agentId,
    checkedAt: c.at,
    checks: (c.data as { checks?: unknown }).checks ?? [],
  }));
  const backlogRows = deps.repo.backlogSinceForAll(new Date(now.getTime() - BACKLOG_WINDOW_MS).toISOString());
  const backlog: z.infer<typeof diagnosticsBacklogSchema> = [];
  for (const r of backlogRows) {
    let series = backlog.find((b) => b.pipelineId === r.pipelineId && b.agentId === r.agentId);
    if (!series) backlog.push((series = { pipelineId: r.pipelineId, agentId: r.agentId, points: [] }));
    const { pipelineId: _p, agentId: _a, ...point } = r;
    series.points.push(point);
  }
  const files: Record<string, string> = {
    [DIAGNOSTICS_FILES.manifest]: json({
      format: DIAGNOSTICS_FORMAT,
      version: 1,
      createdAt: now.toISOString(),
      source: extras.source,
      versions: extras.versions,
    }),
    [DIAGNOSTICS_FILES.configuration]: json({ pipelines }),
    [DIAGNOSTICS_FILES.checks]: json(checks),
    [DIAGNOSTICS_FILES.events]: json(deps.repo.recentEvents(RECENT_EVENTS)),
    [DIAGNOSTICS_FILES.backlog]: json(backlog),
    [DIAGNOSTICS_FILES.verify]: json(
      pipelines.flatMap((p) =>
        p.agents
          .map((a) => ({ pipelineId: p.id, agentId: a.id, reports: deps.repo.verifyReports(p.id, a.id) }))
          .filter((v) => v.reports.length > 0),
      ),
    ),
  };
  // Production rows: counts, and the newest rows' shape and errors with every value masked.
  files[DIAGNOSTICS_FILES.exceptions] = json(
    pipelines.flatMap((p) =>
      p.agents
        .filter((a) => a.role === 'source')
        .map((a) => ({
          pipelineId: p.id,
          agentId: a.id,
          counts: deps.exceptions.counts(p.id, a.id),
          rows: deps.exceptions.list(p.id, a.id, null, DIAGNOSTICS_EXCEPTIONS).map(maskException),
        }))
        .filter((e) => Object.keys(e.counts).length > 0),
    ),
  );
  if (extras.profiles) files[DIAGNOSTICS_FILES.profiles] = json(extras.profiles);
  for (const log of extras.logs ?? []) files[LOGS_FOLDER + log.name] = tail(log.text);

  const entries = Object.fromEntries(
    Object.entries(files).map(([name, text]) => [name, strToU8(scrubSecrets(text, secrets))]),
  );
  return zipSync(entries, { level: 6, mtime: now });
}

export class BundleError extends Error {}

/** Opens a bundle for reading offline; refuses anything that is not one, naming what is wrong. */
export function readDiagnosticsBundle(bytes: Uint8Array): DiagnosticsView {
  if (bytes.length > MAX_BUNDLE_BYTES)
    throw new BundleError(
      `The file is larger than ${MAX_BUNDLE_BYTES / 1024 / 1024} MB: not a diagnostics bundle.`,
    );
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes);
  } catch {
    throw new BundleError('The file is not a zip archive: not a diagnostics bundle.');
  }
  const total = Object.values(entries).reduce((n, e) => n + e.length, 0);
  if (total > 8 * MAX_BUNDLE_BYTES)
    throw new BundleError('The archive unpacks to more than a bundle ever holds.');
  const read = <S extends z.ZodType>(name: string, schema: S, optional = false): z.output<S> | null => {
    const entry = entries[name];
    if (!entry) {
      if (optional) return null;
      throw new BundleError(`The bundle has no ${name}.`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(strFromU8(entry));
    } catch {
      throw new BundleError(`${name} in the bundle is not JSON.`);
    }
    const result = schema.safeParse(parsed);
    if (!result.success)
      throw new BundleError(
        `${name} in the bundle is not in the expected shape (${result.error.issues[0]?.message ?? 'invalid'}).`,
      );
    return result.data;
  };
  const manifest = read(DIAGNOSTICS_FILES.manifest, diagnosticsManifestSchema);
  if (!manifest) throw new BundleError('The bundle has no manifest.');
  return {
    manifest,
    configuration: read(DIAGNOSTICS_FILES.configuration, diagnosticsConfigurationSchema) ?? { pipelines: [] },
    checks: read(DIAGNOSTICS_FILES.checks, diagnosticsChecksSchema) ?? [],
    events: read(DIAGNOSTICS_FILES.events, diagnosticsEventsSchema) ?? [],
    backlog: read(DIAGNOSTICS_FILES.backlog, diagnosticsBacklogSchema) ?? [],
    // Bundles from before verify have none.
    verify: read(DIAGNOSTICS_FILES.verify, diagnosticsVerifySchema, true) ?? [],
    // Bundles from before the exceptions store have none.
    exceptions: read(DIAGNOSTICS_FILES.exceptions, diagnosticsExceptionsSchema, true) ?? [],
    profiles: read(DIAGNOSTICS_FILES.profiles, diagnosticsProfilesSchema, true),
    logs: Object.entries(entries)
      .filter(([name]) => name.startsWith(LOGS_FOLDER))
      .map(([name, data]) => ({ name: name.slice(LOGS_FOLDER.length), text: strFromU8(data) })),
    files: Object.entries(entries).map(([name, data]) => ({ name, size: data.length })),
  };
}
