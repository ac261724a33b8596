// The seed of a randomised test: TEST_SEED when given (to replay a failure), otherwise a new one, printed
// so that a failing run can be replayed exactly. Each property derives its own from it (`seedOf`), so
// that two properties of one file never draw the same values.
export function testSeed(name: string): (property: string) => number {
  const given = process.env.TEST_SEED;
  const seed = given ? Number(given) : Date.now() % 2 ** 31;
  process.stdout.write(`${name}: seed ${seed} (replay with TEST_SEED=${seed})\n`);
  return (property) => {
    let hash = seed;
    for (const c of property) hash = (Math.imul(hash, 31) + c.charCodeAt(0)) | 0;
    return Math.abs(hash) % 2 ** 31;
  };
}
