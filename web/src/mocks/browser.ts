// `npm run dev:mock`: msw answers every /hcs call in the browser from the contract's generated handlers, so the
// app runs with no server. The generated faker data is random, including `ret`; successful envelopes (ret 0) and a
// coherent signed-in user and library list are laid over it so the shell behaves like a real session.
import { setupWorker } from 'msw/browser';
import { http, HttpResponse, type RequestHandler } from 'msw';
import * as session from '../api/gen/session/session.msw.ts';
import * as libraries from '../api/gen/libraries/libraries.msw.ts';
import * as capacity from '../api/gen/capacity/capacity.msw.ts';
import * as files from '../api/gen/files/files.msw.ts';
import * as upload from '../api/gen/upload/upload.msw.ts';
import * as download from '../api/gen/download/download.msw.ts';
import { mockFixtures } from './fixtures.ts';

type Factory = (override?: unknown) => RequestHandler;
type Module = Record<string, unknown>;

/** Every generated `getXMockHandler`, answering its own faker payload with ret 0. */
export function okHandlers(modules: Module[]): RequestHandler[] {
  const out: RequestHandler[] = [];
  for (const mod of modules) {
    for (const [name, value] of Object.entries(mod)) {
      const m = /^get(\w+)MockHandler$/.exec(name);
      const mock = m && mod[`get${m[1]}ResponseMock`];
      if (typeof value !== 'function' || typeof mock !== 'function') continue;
      out.push((value as Factory)(() => ({ ...(mock as () => object)(), ret: 0, msg: 'success' })));
    }
  }
  return out;
}

export async function startMockWorker(): Promise<void> {
  const fixtures = await mockFixtures();
  const handlers = [
    ...fixtures,
    http.get('*/drive/static/i18n/*', () => HttpResponse.json({})),
    ...okHandlers([session, libraries, capacity, files, upload, download]),
  ];
  await setupWorker(...handlers).start({ serviceWorker: { url: '/drive/mockServiceWorker.js' }, onUnhandledFrame: 'bypass' });
}
