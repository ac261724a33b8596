/**
 * A PostgreSQL identifier as the target writes every name: quoted, a quote doubled, so the server
 * keeps its exact characters and a hostile name stays one identifier in any statement or fix text.
 */
export const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;
