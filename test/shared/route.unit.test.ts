// Every screen and every section of a pipeline has an address, and an address opens what it names.
import { describe, expect, it } from 'vitest';
import { parseRouteHash, PIPELINE_SECTIONS, routeHash, type AppRoute } from '../../shared/route';
import { openedBy } from '../../shared/push';

const at = { profileId: 'local', pipelineId: 'sales-2', agentId: 'ct_1' };

describe('app addresses', () => {
  it('round-trips every screen and every section of a pipeline', () => {
    const routes: AppRoute[] = [
      { screen: 'home' },
      { screen: 'agents' },
      { screen: 'engines' },
      { screen: 'diagnostics' },
      { screen: 'pipelines', section: 'status' },
      ...PIPELINE_SECTIONS.map((section): AppRoute => ({ screen: 'pipelines', at, section })),
    ];
    for (const route of routes) expect(parseRouteHash(routeHash(route))).toEqual(route);
    expect(routeHash({ screen: 'pipelines', at, section: 'checks' })).toBe(
      '#/pipelines/local/sales-2/ct_1/checks',
    );
  });

  it('opens a pipeline without a section on its Status', () => {
    expect(parseRouteHash('#/pipelines/local/sales/ct')).toEqual({
      screen: 'pipelines',
      at: { profileId: 'local', pipelineId: 'sales', agentId: 'ct' },
      section: 'status',
    });
  });

  it('ignores what is not an address of the app: a web token, an unknown section, a bad id', () => {
    for (const hash of [
      '',
      '#token=abc',
      '#code=abc',
      '#/nowhere',
      '#/pipelines/local/sales/ct/billing',
      '#/pipelines/local/Sales/ct',
      '#/pipelines/local/a/b/status/more',
      '#/home/x',
      '#/pipelines/%E0%A4%A',
    ])
      expect(parseRouteHash(hash), hash).toBeUndefined();
  });

  it("opens a pipeline alert's notification on the pipeline's Status", () => {
    expect(openedBy({ ...at, kind: 'lag', title: 't', body: 'b', at: '2026-11-27T06:00:00.000Z' })).toEqual({
      type: 'open-pipeline',
      ...at,
      section: 'status',
    });
  });
});
