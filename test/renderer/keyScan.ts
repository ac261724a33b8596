// The words a DBA must never read on a screen: every settings field's key, as the field declarations
// name them (the camelCase ones — "host" or "port" are English as well as keys), and every method name
// of the app's contract. A page watched by `watchForKeys` records each one that ever shows, on any
// screen the test passes through, with the text around it.
import type { Page } from 'playwright-core';
import { agentTypes } from '../../shared/agents';
import { fieldsOf } from '../../shared/config/parse';
import { METHOD_NAMES } from '../../shared/ipc';

export const KEY_WORDS: readonly string[] = [
  ...new Set([
    ...Object.values(agentTypes).flatMap((t) =>
      Object.values(t.sections).flatMap((section) => fieldsOf(section).map((f) => f.key)),
    ),
    ...METHOD_NAMES,
  ]),
].filter((word) => /[a-z][A-Z]/.test(word));

/** Each key word in `text`, with a few words around it. */
export function keysIn(text: string): string[] {
  return KEY_WORDS.flatMap((word) => {
    const at = new RegExp(`\\b${word}\\b`).exec(text);
    return at
      ? [`${word} in "…${text.slice(Math.max(0, at.index - 40), at.index + word.length + 40)}…"`]
      : [];
  });
}

/**
 * Watches every screen the page shows from now on (each change of its text, read a moment after it
 * settles); the answer reads what was seen. Text inside a closed <details> is not read: it is not
 * on the screen until the DBA opens it.
 */
export async function watchForKeys(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript((words: readonly string[]) => {
    const seen = new Set<string>();
    const pattern = new RegExp(`\\b(${words.join('|')})\\b`, 'g');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = () => {
      const text = document.body?.innerText ?? '';
      for (const match of text.matchAll(pattern))
        seen.add(
          `${match[0]} in "…${text.slice(Math.max(0, match.index - 40), match.index + match[0].length + 40)}…"`,
        );
    };
    (window as unknown as { __keysSeen: () => string[] }).__keysSeen = () => (read(), [...seen]);
    const watch = () =>
      new MutationObserver(() => {
        clearTimeout(timer);
        timer = setTimeout(read, 150);
      }).observe(document.documentElement, { subtree: true, childList: true, characterData: true });
    if (document.documentElement) watch();
    else document.addEventListener('DOMContentLoaded', watch);
  }, KEY_WORDS);
  return () =>
    page.evaluate(() => (window as unknown as { __keysSeen?: () => string[] }).__keysSeen?.() ?? []);
}
