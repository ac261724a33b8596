// The address bar follows the app and the app follows the address bar: every screen and every section
// of an open pipeline has its own address, so Back, a bookmark and a reload land where the DBA was.
import { parseRouteHash, routeHash, type AppRoute } from '../../shared/route';
import { address, openPipeline } from './pipelinePage';
import { useStore } from './index';
import type { StoreState } from './state';

/** Where the app is now, as an address names it. */
export function routeOf(state: StoreState): AppRoute {
  if (state.screen !== 'pipelines') return { screen: state.screen };
  const at = address();
  return at
    ? { screen: 'pipelines', at, section: state.section }
    : { screen: 'pipelines', section: 'status' };
}

/** While an address is being followed, the steps on the way replace it rather than add history. */
let following = 0;

/** Goes where `route` says: a screen, or a pipeline's section (its engine read first when needed). */
export async function followRoute(route: AppRoute): Promise<void> {
  if (route.screen !== 'pipelines') return useStore.setState({ screen: route.screen });
  if (!route.at) return useStore.setState({ screen: 'pipelines' });
  following += 1;
  try {
    await openPipeline({ ...route.at, section: route.section });
  } finally {
    following -= 1;
  }
}

/**
 * Keeps `location.hash` and the store in step for the window's life: a change in the app pushes an
 * address (so Back returns), an address typed or gone back to opens what it names.
 */
export function startRouting(win: Window = window): () => void {
  const opened = parseRouteHash(win.location.hash);
  if (opened) void followRoute(opened);
  const unsubscribe = useStore.subscribe((state) => {
    const hash = routeHash(routeOf(state));
    if (win.location.hash === hash) return;
    if (following > 0) win.history.replaceState(null, '', hash);
    else win.history.pushState(null, '', hash);
  });
  const onHashChange = () => {
    const route = parseRouteHash(win.location.hash);
    if (route && routeHash(route) !== routeHash(routeOf(useStore.getState()))) void followRoute(route);
  };
  // Back and Forward between addresses the app pushed fire popstate; a typed address, hashchange.
  win.addEventListener('hashchange', onHashChange);
  win.addEventListener('popstate', onHashChange);
  return () => {
    unsubscribe();
    win.removeEventListener('hashchange', onHashChange);
    win.removeEventListener('popstate', onHashChange);
  };
}
