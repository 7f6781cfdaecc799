import type { FastifyInstance, HTTPMethods } from 'fastify';

/** A route as the app registered it: `GET /console/o/:org/keys`. */
export interface AppRoute {
  method: HTTPMethods;
  url: string;
}

/**
 * Every route of `app` whose URL starts with `prefix`, read from the app itself
 * (printRoutes' tree, each line a segment below its parent's); each one found is confirmed with
 * hasRoute, so a misread tree fails here rather than leaving a route out.
 */
export function routesOf(app: FastifyInstance, prefix: string): AppRoute[] {
  const found: AppRoute[] = [];
  const path: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)[├└]── (.+?)(?: \(([^)]+)\))?$/.exec(line.replace(/\s+$/, ''));
    if (!m) {
      if (line.trim()) throw new Error(`cannot read this line of printRoutes: ${line}`);
      continue;
    }
    const depth = m[1]!.length / 4;
    path.length = depth;
    path.push(m[2]!);
    const url = path.join('');
    for (const method of m[3]?.split(', ') ?? []) {
      if (url === prefix || url.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`))
        found.push({ method: method as HTTPMethods, url });
    }
  }
  for (const route of found)
    if (!app.hasRoute(route)) throw new Error(`read ${route.method} ${route.url} from printRoutes, but the app has no such route`);
  return found;
}
