// Serves the built web app at /drive/ with history-mode fallback (any /drive/* path that is not a file gets
// index.html), and redirects / to /drive/. /drive/static/i18n and /drive/static/skin are contract routes.
// The build writes brotli and gzip copies beside each file (web/vite.config.ts); the browser gets the one it
// accepts as stored, so nothing is compressed per request, and the plain file otherwise.
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerConfig } from '../config.ts';

export async function registerWeb(app: FastifyInstance, config: ServerConfig): Promise<void> {
  app.get('/', async (_req, reply) => reply.redirect('/drive/', 302));
  app.get('/drive', async (_req, reply) => reply.redirect('/drive/', 302));
  const index = join(config.webDist, 'index.html');
  const built = existsSync(index);
  if (built) {
    await app.register(fastifyStatic, {
      root: config.webDist,
      prefix: '/drive/',
      wildcard: false,
      index: false,
      cacheControl: false,
      // Picks name.br / name.gz by Accept-Encoding, sets Content-Encoding, and answers Vary: Accept-Encoding on
      // every file, the plain fallback included, so a shared cache keeps the variants apart.
      preCompressed: true,
      // The variants are reached through their plain name only.
      globIgnore: ['**/*.br', '**/*.gz'],
      setHeaders(res, path) {
        // Hashed assets never change; index.html must always be revalidated.
        res.header('Cache-Control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
    // Browsers ask the origin's root for the icon whatever the page links (bookmarks, tabs opened from elsewhere).
    app.get('/favicon.ico', async (_req, reply) => reply.header('Cache-Control', 'public, max-age=86400').sendFile('favicon.ico', config.webDist));
  }
  const notBuilt =
    '<!doctype html><meta charset="utf-8"><title>HCS drive</title><p>The web app is not built. Run <code>npm run build</code> (or <code>bash .ci/drive start</code>).</p>';
  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split('?')[0] ?? '';
    if ((req.method === 'GET' || req.method === 'HEAD') && path.startsWith('/drive/') && !path.startsWith('/drive/static/')) {
      // Files of the build have their own routes (static plugin, wildcard off); everything else is an app route,
      // answered with index.html through the static plugin (its compressed copy, no-cache from setHeaders).
      if (built) return reply.sendFile('index.html', config.webDist);
      return reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-cache').send(notBuilt);
    }
    return reply.status(404).send({ ret: 1, msg: `no route for ${req.method} ${path}`, data: { code: 'NOT_FOUND', traceId: req.traceId } });
  });
}
