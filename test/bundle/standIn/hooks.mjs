// Module resolution hook: `electron` is the stand-in; everything else resolves as usual.
const standIn = new URL('./electron.cjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'electron') return { url: standIn, shortCircuit: true };
  return nextResolve(specifier, context);
}
