// Settings an entity holds that SQL Server cannot honour are refused at Start, never ignored: a DBA
// who copied an IBM i entity's members, forceCcsid or textOrder would otherwise believe them in force.
import { describe, expect, it } from 'vitest';
import { changeTrackingPlugin } from '../../../../main/agents/changeTracking/plugin';
import type { Entity } from '../../../../shared/controlApi';

const entity = (table: string, over: Partial<Entity> = {}): Entity => ({
  source: { schema: 'dbo', table },
  target: { table: table.toLowerCase() },
  rowIdentification: { kind: 'primaryKey' },
  ...over,
});
const refuse = (entities: Entity[]) => changeTrackingPlugin.source?.refuseEntities?.(entities) ?? null;

describe('the change-tracking agent refuses', () => {
  it('IBM i settings, naming the tables that hold them', () => {
    expect(
      refuse([
        entity('Customers'),
        entity('Orders', { forceCcsid: 273 }),
        entity('Items', { members: ['A'] }),
        entity('Notes', { textOrder: 'stored' }),
      ]),
    ).toBe(
      "members, forceCcsid and textOrder are settings of the journal agent (IBM i): SQL Server tables have no members, and their text is read by each column's collation, in the order it is stored. Remove them from dbo.Orders, dbo.Items, dbo.Notes.",
    );
  });

  it('another row identification than the primary key', () => {
    expect(refuse([entity('Log', { rowIdentification: { kind: 'rrn' } })])).toMatch(
      /^The change-tracking agent identifies rows by primary key only: dbo.Log/,
    );
  });

  it('nothing else', () => {
    expect(refuse([entity('Customers', { rowFilter: "Country = 'FR'" })])).toBeNull();
  });
});
