// How a job reads CL date and time values: QDATFMT, QDATSEP and QTIMSEP, which every job takes.
export type JobDateFormat = '*MDY' | '*DMY' | '*YMD' | '*JUL';

export interface JobDateSettings {
  dateFormat: JobDateFormat;
  dateSeparator: string;
  timeSeparator: string;
}

/** The system values as a US system ships them. */
export const US_JOB_DATES: JobDateSettings = { dateFormat: '*MDY', dateSeparator: '/', timeSeparator: ':' };
