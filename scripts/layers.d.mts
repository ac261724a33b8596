// Types of scripts/layers.mjs (a plain script ESLint loads), for the tests that read it.
export const LAYERS: Readonly<Record<string, readonly string[]>>;
export function layerOf(root: string, path: string): string | undefined;
export function layerViolation(root: string, file: string, spec: string): string | null;
export function layerTable(): string;
