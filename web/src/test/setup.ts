// jsdom lacks a few browser APIs antd relies on.
import { afterAll, afterEach } from 'vitest';
import { cleanup, configure } from '@testing-library/react';

afterEach(() => cleanup());
// A commit made outside act() (a fetch answering, a lazy page arriving) leaves React's passive-effect callback in the
// scheduler's setImmediate queue, and that callback reads `window.event` first thing. If the file's environment is
// torn down before it runs, it throws "window is not defined" as an unhandled error (seen once in CI). Let the
// scheduler drain while jsdom still exists: two check phases cover a callback that re-queues itself after yielding.
afterAll(async () => {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
});
// findBy/waitFor wait for a state; on a shared, loaded machine a lazy page may take more than the default second.
configure({ asyncUtilTimeout: 8000 });

if (typeof window !== 'undefined') {
  window.matchMedia ??= ((query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  })) as unknown as typeof window.matchMedia;
  (globalThis as { ResizeObserver?: unknown }).ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
}

// The app calls relative URLs (/hcs/...); Node's fetch needs absolute ones. Resolve them against the jsdom origin so
// msw's node interceptor sees the same paths the browser would send.
if (typeof window !== 'undefined') {
  const nodeFetch = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
    nodeFetch(typeof input === 'string' && input.startsWith('/') ? new URL(input, window.location.origin) : input, init)) as typeof fetch;
}
