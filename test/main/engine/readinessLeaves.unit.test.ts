// The readiness report says what leaves the source, per table (docs/shaping.md): the columns, each
// mask and target name, the rows the filter lets through and skipped deletes, and the provenance
// columns every table gets — so a change board reads what a copy of production will hold.
import { describe, expect, it } from 'vitest';
import { readinessReportHtml } from '../../../main/engine/readinessReport';
import { entitySchema } from '../../../shared/controlApi';

const agent = {
  id: 'sales',
  pipelineId: 'p',
  name: 'Sales',
  type: 'change-tracking' as const,
  role: 'source' as const,
  state: 'configured' as const,
  failureReason: null,
  hostCredentials: { maskSalt: null, maskSaltSet: true },
  configuration: {},
  createdAt: '2026-12-02T00:00:00.000Z',
  updatedAt: '2026-12-02T00:00:00.000Z',
};

const html = (entities: unknown[], provenance = {}) =>
  readinessReportHtml({
    pipeline: { id: 'p', name: 'P' },
    agent,
    agentTypeTitle: 'Change tracking, SQL Server',
    endpoint: null,
    target: 'the default SQLite file',
    checks: [],
    tables: [],
    entities: entities.map((e) => entitySchema.parse(e)),
    provenance,
    madeAt: '2026-12-02T00:00:00.000Z',
    versions: {},
  });

describe('what leaves the source, in the readiness report', () => {
  it('says per table its columns, masks, names and rows, and the provenance columns added', () => {
    const page = html(
      [
        {
          source: { schema: 'dbo', table: 'Customers' },
          target: { table: 'customers' },
          columns: ['Email', 'Country'],
          columnShaping: { Email: { mask: { kind: 'hash' } }, Country: { targetName: 'country_code' } },
          rowFilter: "Country in ('CH', 'DE')",
          skipOperations: ['delete'],
        },
        { source: { schema: 'dbo', table: 'Orders' }, target: { table: 'orders' } },
        {
          source: { schema: 'dbo', table: 'Prices' },
          target: { table: 'prices' },
          tableMode: { kind: 'history' },
        },
      ],
      { operation: 'cdc_op' },
    );
    const section = page.slice(page.indexOf('<h2>What leaves the source</h2>'));
    expect(section).toContain('Every table also gets the provenance columns cdc_op (operation).');
    const rows = section.match(/<tr><th scope="row">[\s\S]*?<\/tr>/g) ?? [];
    const text = rows.map((r) =>
      r
        .replace(/<[^>]+>/g, '|')
        .replace(/\|+/g, '|')
        .replace(/\s+/g, ' '),
    );
    expect(text).toEqual([
      '|dbo.Customers|Email, Country and the key| |Email: hashed (HMAC-SHA-256 with the salt)|Country as country_code|only where Country in (&#39;CH&#39;, &#39;DE&#39;); the source&#39;s deletes skipped|',
      '|dbo.Orders|every column| |none: values as they are|–|every row|',
      '|dbo.Prices|every column| |none: values as they are|–|every row; every version kept, valid from cdc_valid_from to cdc_valid_to (null while current)|',
    ]);
  });

  it('refuses a table mode whose two columns would be one, naming the field', () => {
    const parsed = entitySchema.safeParse({
      source: { schema: 'dbo', table: 'Prices' },
      target: { table: 'prices' },
      tableMode: { kind: 'history', validFromColumn: 'Valid', validToColumn: 'VALID' },
    });
    expect(parsed.error?.issues[0]).toMatchObject({
      path: ['tableMode', 'validToColumn'],
      message: "VALID is the mode's other column too: its two columns need two names",
    });
  });

  it('leaves the section out of a pipeline without tables', () => {
    expect(html([])).not.toContain('What leaves the source');
  });
});
