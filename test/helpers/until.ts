// Waits for a condition a running pipeline will reach, polling; the timeout only guards a hang.
export async function until(
  what: string,
  done: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * A point in time more than a second after what came before and before what comes after: the
 * sources' clocks (commit times to the second on some) tell the two sides apart.
 */
export async function pointBetween(): Promise<string> {
  await new Promise((r) => setTimeout(r, 1100));
  const point = new Date().toISOString();
  await new Promise((r) => setTimeout(r, 1100));
  return point;
}
