// Every page of docs/ and the README names only what exists: a link to a file, a path in backticks
// (`main/engine/server.ts`) and a control API route (`PUT …/config/credentials`) each resolve, so a
// page cannot go on pointing at a file that moved or a route that was renamed.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { routes } from '../../shared/controlApiRoutes';
import { WEB_SESSION_PATH } from '../../shared/api';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];

/** Route paths as a pattern each: `{pipelineId}` (or any `{…}`) matches one segment. */
const routePaths = Object.values(routes).map((r) => ({ method: r.method, path: r.path }));
const segments = (path: string) => path.replace(/\{[^}]+\}/g, '{}').replace(/<[^>]+>/g, '{}');
/** Paths served beside the route table: web mode's bridge, its launch code, the readiness report. */
const OTHER_PATHS = ['/api/{}', WEB_SESSION_PATH, '/api/push', '/metrics'];

/** Whether a route's path (with `{}` for its parameters) names `given`, segment by segment. */
const fits = (known: string, given: string[]) => {
  const parts = known.split('/');
  return (
    parts.length === given.length && parts.every((p, i) => p === '{}' || p === given[i] || given[i] === '{}')
  );
};

function routeExists(method: string, path: string): boolean {
  const given = segments(path.replace(/[.,;:)]+$/, ''));
  const known = [
    ...routePaths.filter((r) => r.method === method).map((r) => segments(r.path)),
    ...OTHER_PATHS,
  ];
  if (given.startsWith('…/')) {
    const tail = given.slice(2).split('/');
    return known.some((k) => fits(k.split('/').slice(-tail.length).join('/'), tail));
  }
  return (
    known.some((k) => fits(k, given.split('/'))) ||
    OTHER_PATHS.some((o) => given.startsWith(o.replace('{}', '')))
  );
}

/** Files a command writes, never committed: `npm run bench`'s results, a test run's artifacts. */
const writtenByCommands = (path: string) =>
  path === 'bench/results.json' || path.startsWith('test/artifacts/');

const REPO_PATH = /^(main|renderer|shared|simulators|test|scripts|bench|docs|build|\.ci)\/[\w./@-]*$/;

describe.each(pages)('%s', (page) => {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const here = dirname(join(ROOT, page));

  it('links only to files that exist', () => {
    const missing = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1] ?? '')
      .filter((target) => !/^(https?:|mailto:|#)/.test(target))
      .map((target) => target.split('#')[0] ?? '')
      .filter((target) => target !== '' && !existsSync(resolve(here, target)));
    expect(missing).toEqual([]);
  });

  it('names in backticks only repository paths that exist', () => {
    const missing = [...text.matchAll(/`([^`\s]+)`/g)]
      .map((m) => (m[1] ?? '').replace(/:\d+(-\d+)?$/, ''))
      .filter((p) => REPO_PATH.test(p) && !/[*<{…]/.test(p) && !writtenByCommands(p))
      .filter((p) => !existsSync(join(ROOT, p)));
    expect([...new Set(missing)]).toEqual([]);
  });

  it('names only control API routes that exist', () => {
    const missing = [...text.matchAll(/`(GET|POST|PUT|DELETE) ((?:…)?\/[^`\s]*)`/g)]
      .filter((m) => !routeExists(m[1] ?? '', m[2] ?? ''))
      .map((m) => `${m[1]} ${m[2]}`);
    expect([...new Set(missing)]).toEqual([]);
  });
});
