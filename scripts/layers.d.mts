// Types of scripts/layers.mjs (a plain script ESLint loads), for the tests that read it.
export const LAYERS: Readonly<Record<string, readonly string[]>>;
export function layerOf(root: string, path: string): string | undefined;
export function layerViolation(root: string, file: string, spec: string): string | null;
export function layerTable(): string;
/** The agent type folders (`main/agents/<type>`), read from the tree. */
export const AGENT_FOLDERS: readonly string[];
/** The driver folders (`main/agents/drivers/<database>`), read from the tree. */
export const DRIVER_FOLDERS: readonly string[];
