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
