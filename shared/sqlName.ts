// A table or column name as an entity writes it: SQL Server names are bracket-quoted wherever they
// reach SQL, so any text but control characters, 1 to 128 characters.
import { z } from 'zod';

export const sqlNameSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^\P{Cc}+$/u);
