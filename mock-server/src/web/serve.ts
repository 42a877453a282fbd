// Serves the built web app at /drive/ with history-mode fallback (any /drive/* path that is not a file gets
// index.html), and redirects / to /drive/. /drive/static/i18n and /drive/static/skin are contract routes.
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { existsSync, readFileSync } from 'node:fs';
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
      setHeaders(res, path) {
        // Hashed assets never change; index.html must always be revalidated.
        res.header('Cache-Control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
    // Browsers ask the origin's root for the icon whatever the page links (bookmarks, tabs opened from elsewhere).
    app.get('/favicon.ico', async (_req, reply) => reply.header('Cache-Control', 'public, max-age=86400').sendFile('favicon.ico', config.webDist));
  }
  const html = () =>
    built
      ? readFileSync(index, 'utf8')
      : '<!doctype html><meta charset="utf-8"><title>HCS drive</title><p>The web app is not built. Run <code>npm run build</code> (or <code>bash .ci/drive start</code>).</p>';
  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split('?')[0] ?? '';
    if ((req.method === 'GET' || req.method === 'HEAD') && path.startsWith('/drive/') && !path.startsWith('/drive/static/')) {
      // Files of the build have their own routes (static plugin, wildcard off); everything else is an app route.
      return reply.type('text/html; charset=utf-8').header('Cache-Control', 'no-cache').send(html());
    }
    return reply.status(404).send({ ret: 1, msg: `no route for ${req.method} ${path}`, data: { code: 'NOT_FOUND', traceId: req.traceId } });
  });
}
