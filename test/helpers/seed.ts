// The seed of a randomised test: TEST_SEED when given (to replay a failure), otherwise a new one, printed
// so that a failing run can be replayed exactly.
export function testSeed(name: string): number {
  const given = process.env.TEST_SEED;
  const seed = given ? Number(given) : Date.now() % 2 ** 31;
  process.stdout.write(`${name}: seed ${seed} (replay with TEST_SEED=${seed})\n`);
  return seed;
}
