// Remembers the window's size and place between runs, parsed on read like any file from outside.
import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

const stateSchema = z.object({
  x: z.number().int().optional(),
  y: z.number().int().optional(),
  width: z.number().int().min(400).max(20000),
  height: z.number().int().min(300).max(20000),
  maximized: z.boolean(),
});
export type WindowState = z.infer<typeof stateSchema>;
export const DEFAULT_WINDOW_STATE: WindowState = { width: 1200, height: 800, maximized: false };

interface Area {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The saved state, or the default when none is saved, it is damaged, or its place is off every screen. */
export function loadWindowState(file: string, screens: readonly Area[]): WindowState {
  let parsed: WindowState;
  try {
    parsed = stateSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return DEFAULT_WINDOW_STATE;
  }
  const { x, y } = parsed;
  if (x === undefined || y === undefined) return parsed;
  // At least a corner's worth of the title bar must be on a screen, or the window could not be grabbed.
  const visible = screens.some(
    (s) => x + 100 > s.x && x < s.x + s.width - 100 && y >= s.y && y < s.y + s.height - 50,
  );
  return visible ? parsed : { width: parsed.width, height: parsed.height, maximized: parsed.maximized };
}

export function saveWindowState(file: string, state: WindowState): void {
  writeFileSync(file, JSON.stringify(stateSchema.parse(state)), { mode: 0o600 });
}
