// A pipeline's Tables: the tables it replicates as the source sees them (read when the section opens),
// their copies, and the catalogue to choose them from.
import { useEffect } from 'react';
import { useStore } from '../../store';
import { address, loadTables, selectedIn } from '../../store/pipelinePage';
import { openPicker } from '../../store/tablePicker';
import { TablePicker } from '../../ui/TablePicker';
import { TablesView } from '../TablesView';
import { CopyProgress } from './CopyProgress';
import { TableStory } from './TableStory';
import { ExceptionsPanel } from './ExceptionsPanel';
import { loadExceptions } from '../../store/exceptions';

export function TablesSection() {
  const pipelinePage = useStore((s) => s.pipelinePage);
  const picker = useStore((s) => s.picker);
  const picked = selectedIn(pipelinePage);
  const { selected, tables, snapshots, busy } = pipelinePage;
  useEffect(() => {
    if (selected && useStore.getState().pipelinePage.tables === undefined) void loadTables();
    if (selected) void loadExceptions();
  }, [selected]);
  const at = address();
  const source = picked?.agent.role === 'source' ? picked.agent : undefined;
  const pickerOpen = picker !== undefined && at !== undefined && picker.address.pipelineId === at.pipelineId;
  return (
    <>
      {source && at && !pickerOpen && (
        <p className="row-actions">
          <button
            type="button"
            className={Array.isArray(tables) && tables.length === 0 ? 'primary' : undefined}
            disabled={busy !== undefined}
            onClick={() => void openPicker({ ...at, agentType: source.type })}
          >
            Choose tables
          </button>
          {Array.isArray(tables) && tables.length === 0 && (
            <span className="muted">No tables yet: choose the tables this pipeline replicates.</span>
          )}
        </p>
      )}
      {pickerOpen && <TablePicker />}
      {pipelinePage.storyTable && <TableStory table={pipelinePage.storyTable} />}
      <CopyProgress snapshots={snapshots} busy={busy !== undefined} />
      <TablesView />
      <ExceptionsPanel />
    </>
  );
}
