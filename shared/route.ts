// Where the app is, as the address bar and a notification name it: a screen, or one pipeline's
// section (`#/pipelines/local/sales/ct/checks`). Declared once for the window, the push channel and
// the tests; free of DOM so main can make an address too.
import { z } from 'zod';
import { idSchema } from './controlApi';

export const pipelineSectionSchema = z.enum(['status', 'tables', 'checks', 'verify', 'timeline', 'settings']);
export type PipelineSection = z.infer<typeof pipelineSectionSchema>;
export const PIPELINE_SECTIONS = pipelineSectionSchema.options;

/** Each section's name on its tab and in its heading. */
export const SECTION_TITLES: Record<PipelineSection, string> = {
  status: 'Status',
  tables: 'Tables',
  checks: 'Checks',
  verify: 'Verify',
  timeline: 'Timeline',
  settings: 'Settings',
};

export const screenSchema = z.enum(['home', 'agents', 'engines', 'pipelines', 'diagnostics']);
export type Screen = z.infer<typeof screenSchema>;

export interface PipelineAddress {
  profileId: string;
  pipelineId: string;
  agentId: string;
}

export type AppRoute =
  | { screen: Exclude<Screen, 'pipelines'> }
  | { screen: 'pipelines'; at?: PipelineAddress; section: PipelineSection };

/** The address of a route: `#/home`, `#/pipelines`, `#/pipelines/{engine}/{pipeline}/{agent}/{section}`. */
export function routeHash(route: AppRoute): string {
  if (route.screen !== 'pipelines' || !route.at) return `#/${route.screen}`;
  const { profileId, pipelineId, agentId } = route.at;
  return `#/pipelines/${[profileId, pipelineId, agentId, route.section].map(encodeURIComponent).join('/')}`;
}

/** The route an address names; undefined for anything else (an old bookmark, a web token's fragment). */
export function parseRouteHash(hash: string): AppRoute | undefined {
  if (!hash.startsWith('#/')) return undefined;
  let parts: string[];
  try {
    parts = hash.slice(2).split('/').map(decodeURIComponent);
  } catch {
    return undefined;
  }
  const screen = screenSchema.safeParse(parts[0]);
  if (!screen.success) return undefined;
  if (screen.data !== 'pipelines') return parts.length === 1 ? { screen: screen.data } : undefined;
  if (parts.length === 1) return { screen: 'pipelines', section: 'status' };
  const [, profileId, pipelineId, agentId, section = 'status'] = parts;
  const at = z.object({ profileId: idSchema, pipelineId: idSchema, agentId: idSchema }).safeParse({
    profileId,
    pipelineId,
    agentId,
  });
  const known = pipelineSectionSchema.safeParse(section);
  if (!at.success || !known.success || parts.length > 5) return undefined;
  return { screen: 'pipelines', at: at.data, section: known.data };
}
