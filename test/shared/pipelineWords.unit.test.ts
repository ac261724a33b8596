// How lists name a pipeline and its agents, and how a long reason is cut for a table cell.
import { describe, expect, it } from 'vitest';
import { agentWords, homeAgentOf, pipelineRoute, shortened } from '../../shared/pipelineWords';

const source = { id: 'sales', type: 'change-tracking', role: 'source' };
const target = { id: 'dw', type: 'postgresql', role: 'target' };

describe('pipeline words', () => {
  it('says where a pipeline reads and writes, the default SQLite file when it has no target', () => {
    expect(pipelineRoute({ agents: [target, source] })).toBe('SQL Server → PostgreSQL');
    expect(pipelineRoute({ agents: [source] })).toBe('SQL Server → SQLite file');
    expect(pipelineRoute({ agents: [] })).toBe('no source → SQLite file');
  });

  it('opens a pipeline at its source, whatever the order its agents come in', () => {
    expect(homeAgentOf({ agents: [target, source] })).toBe(source);
    expect(homeAgentOf({ agents: [target] })).toBe(target);
  });

  it('names an agent by role, id and type, the type once when its title is its database', () => {
    expect(agentWords(source)).toBe('source sales (Change tracking, SQL Server)');
    expect(agentWords(target)).toBe('target dw (PostgreSQL)');
  });

  it('cuts a long reason at a word’s end and marks the cut; a short one stays whole', () => {
    const reason =
      'Cannot read dbo.NoSuchTable: Invalid object name, the table was dropped or renamed at the source';
    const cut = shortened(reason, 40);
    expect(cut).toBe('Cannot read dbo.NoSuchTable: Invalid…');
    expect(cut.length).toBeLessThanOrEqual(41);
    expect(shortened('short', 40)).toBe('short');
  });
});
