// `sudo npm run setup`: installs with apt what the tests need from a Debian or Ubuntu machine (the list
// is preflight.mjs's). npm test runs it by itself as root without a terminal, as on CI.
import { execFileSync } from 'node:child_process';
import { missingNeeds } from './preflight.mjs';

if (process.getuid?.() !== 0) {
  console.error('npm run setup installs packages with apt-get: run it as root (sudo npm run setup).');
  process.exit(1);
}
const packages = [...new Set(missingNeeds().flatMap((need) => need.apt))];
if (packages.length === 0) {
  console.log('Nothing to install: the machine has what the tests need.');
} else {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], {
    stdio: 'inherit',
    env,
  });
}
