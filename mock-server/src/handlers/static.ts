// The web app's translation files and skins under /drive/static/ (contract operations getTranslations, getSkin).
// Translations are the web app's own locale files (web/src/locales/<lang>/<area>.json) merged per language,
// so the browser and the server never disagree about a key.
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AppContext, Handlers } from '../context.ts';
import { AppError } from '../http/errors.ts';

const LOCALES_DIR = new URL('../../../web/src/locales/', import.meta.url).pathname;
const SKINS_DIR = new URL('../../assets/skin/', import.meta.url).pathname;

export function mergeLocale(dir: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    Object.assign(out, JSON.parse(readFileSync(join(dir, f), 'utf8')));
  }
  return out;
}

export function staticHandlers(_ctx: AppContext): Handlers {
  const cache = new Map<string, { mtime: number; body: string }>();
  return {
    async getTranslations(req, reply) {
      const { lang } = req.params;
      const dir = join(LOCALES_DIR, lang);
      const mtime = existsSync(dir) ? Math.max(0, ...readdirSync(dir).map((f) => statSync(join(dir, f)).mtimeMs)) : 0;
      let hit = cache.get(lang);
      if (!hit || hit.mtime !== mtime) {
        hit = { mtime, body: JSON.stringify(mergeLocale(dir)) };
        cache.set(lang, hit);
      }
      reply.header('Cache-Control', 'no-cache');
      return reply.type('application/json; charset=utf-8').send(hit.body);
    },
    async getSkin(req, reply) {
      const { skin } = req.params;
      // The contract's pattern ^[a-z0-9-]+$ already excludes path separators; join stays inside SKINS_DIR.
      const file = join(SKINS_DIR, skin, 'skin.css');
      if (!file.startsWith(SKINS_DIR) || !existsSync(file)) throw new AppError('NOT_FOUND', `skin ${skin} does not exist`);
      reply.header('Cache-Control', 'public, max-age=300');
      return reply.type('text/css; charset=utf-8').send(readFileSync(file, 'utf8'));
    },
  };
}
