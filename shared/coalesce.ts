// A read asked for by events, done once however often it is asked: asked while it runs, it runs once
// more after it (`spacingMs` later), so a burst of events costs two reads and a steady stream of them
// one read per spacing at most. Used by main (an engine's overview) and the renderer (a pipeline's copies).
export function coalesced(read: () => Promise<void>, spacingMs = 0): () => Promise<void> {
  let running: Promise<void> | undefined;
  let again = false;
  const run = async (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = read().finally(() => {
      const next = () => {
        running = undefined;
        if (!again) return;
        again = false;
        void run();
      };
      if (spacingMs > 0) setTimeout(next, spacingMs);
      else next();
    });
    return running;
  };
  return run;
}
