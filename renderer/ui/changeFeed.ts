/** A table's change feed in words, the same in the table picker and the tables view. */
export function changeFeedText(t: {
  changeTracking: boolean | null;
  journal: string | null;
  journalImages: string | null;
  exists?: boolean;
}): string {
  if (t.changeTracking !== null) return t.changeTracking ? 'Change Tracking on' : 'Change Tracking off';
  if (t.journal) return `${t.journal} ${t.journalImages ?? ''}`.trim();
  return t.exists === false ? '' : 'not journaled';
}
