// The first step of `npm test`: what the tests need from the machine, besides npm's packages. As root
// without a terminal (CI on a fresh Debian or Ubuntu), it installs what is missing itself (setup.mjs);
// anywhere else it never calls sudo or apt, and stops at once naming the one command that would.
// PostgreSQL and NATS need no server here: the tests start their own when none answers (test/setup/).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const onPath = (command) =>
  spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const quietly = (file, args) => {
  try {
    return execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '';
  }
};
const postgresBinaries = () =>
  existsSync('/usr/lib/postgresql') &&
  readdirSync('/usr/lib/postgresql').some((v) => existsSync(`/usr/lib/postgresql/${v}/bin/pg_ctl`));

/** Each need: how to tell it is met, and what provides it. */
export const NEEDS = [
  { what: 'Chromium (browser tests)', met: () => existsSync('/usr/bin/chromium'), apt: ['chromium'] },
  { what: "ICU's uconv (CCSID tables)", met: () => onPath('uconv'), apt: ['icu-devtools'] },
  {
    what: 'unixODBC with its SQLite driver (ODBC tests)',
    met: () => quietly('odbcinst', ['-q', '-d']).includes('[SQLite3]'),
    apt: ['unixodbc', 'odbcinst', 'libsqliteodbc'],
  },
  {
    what: "unixODBC's headers (to build odbc)",
    met: () => existsSync('/usr/include/sql.h'),
    apt: ['unixodbc-dev'],
  },
  {
    what: 'nats-server (the NATS JetStream target and its cluster drill)',
    met: () => existsSync('/usr/sbin/nats-server'),
    apt: ['nats-server'],
  },
  {
    what: 'PostgreSQL server binaries (target and restart drills)',
    met: postgresBinaries,
    apt: ['postgresql'],
  },
];

// In a process of its own: this one's module resolution remembers a package that was missing.
function odbcBuilt() {
  return spawnSync(process.execPath, ['-e', "require('odbc')"], { cwd: root }).status === 0;
}

export function missingNeeds() {
  return NEEDS.filter((need) => !need.met());
}

function main() {
  let missing = missingNeeds();
  if (missing.length > 0) {
    const canInstall = process.getuid?.() === 0 && !process.stdin.isTTY && onPath('apt-get');
    if (!canInstall) {
      console.error(
        `npm test needs ${missing.map((m) => m.what).join(', ')}: run \`sudo npm run setup\` once (apt-get install ${missing.flatMap((m) => m.apt).join(' ')}).`,
      );
      process.exit(1);
    }
    console.log(`Installing what the tests need: ${missing.flatMap((m) => m.apt).join(' ')}`);
    execFileSync(process.execPath, [fileURLToPath(new URL('setup.mjs', import.meta.url))], {
      stdio: 'inherit',
    });
    missing = missingNeeds();
    if (missing.length > 0) {
      console.error(`Still missing after setup: ${missing.map((m) => m.what).join(', ')}.`);
      process.exit(1);
    }
  }
  // `npm ci` on a machine without unixODBC's headers fails to build the optional odbc package and
  // leaves it out of node_modules: install the locked version now that the headers are there (a
  // rebuild has nothing to build then), or rebuild one that is there but does not load.
  if (!odbcBuilt()) {
    const present = existsSync(join(root, 'node_modules', 'odbc', 'package.json'));
    const locked = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages?.[
      'node_modules/odbc'
    ]?.version;
    const args = present
      ? ['rebuild', 'odbc', '--foreground-scripts']
      : ['install', '--no-save', '--no-audit', '--no-fund', '--foreground-scripts', `odbc@${locked}`];
    console.log(`Building the odbc package against unixODBC (npm ${args.join(' ')})`);
    execFileSync('npm', args, { cwd: root, stdio: 'inherit' });
    if (!odbcBuilt()) {
      console.error(`The odbc package does not load after \`npm ${args[0]}\`; see its output above.`);
      process.exit(1);
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
