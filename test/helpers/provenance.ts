// The provenance columns the runner tests ask for, named as a DBA would: every source's, and on IBM i
// the job, its user and number, the program and the user profile of each entry.
export const provenanceColumns = (sourceKind: 'change-tracking' | 'journal') => ({
  operation: 'cdc_op',
  commitTime: 'cdc_committed',
  position: 'cdc_position',
  transaction: 'cdc_tx',
  ...(sourceKind === 'journal' && {
    job: 'cdc_job',
    jobUser: 'cdc_job_user',
    jobNumber: 'cdc_job_number',
    program: 'cdc_program',
    userProfile: 'cdc_profile',
  }),
});
