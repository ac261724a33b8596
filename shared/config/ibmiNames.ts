// IBM i system names, below the field declarations that validate them (fields.ts) and the name helpers
// that compare them (shared/names.ts).

/**
 * IBM i system names are upper case: `shop` and `SHOP` name one library. Only a–z fold, as the system
 * folds them: the national characters a name may hold stay as they are (`à` is X'7C', `@` in CCSID 37,
 * under CCSID 297; `À` is another byte that no name may hold).
 */
export const ibmiFold = (name: string): string => name.replace(/[a-z]+/g, (s) => s.toUpperCase());

/**
 * The characters a system name may hold besides A–Z, 0–9 and _: the bytes X'5B', X'7B' and X'7C' ($, #
 * and @ in CCSID 37) as each EBCDIC CCSID the agent reads shows them. A system whose names are shown in
 * CCSID 285 gives `£LIB` for the library a CCSID 37 job calls `$LIB` (IBM, "Variant characters"); a name
 * reaches a command in the job's CCSID and is the same bytes again. test/shared/ibmiNames.unit.test.ts
 * derives the set from the CCSID tables.
 */
export const IBMI_NATIONAL_CHARACTERS = '$#@£§¥ÄÅÆÐÑÖØàİŞ';
