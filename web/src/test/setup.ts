// jsdom lacks a few browser APIs antd relies on.
import { afterEach } from 'vitest';
import { cleanup, configure } from '@testing-library/react';

afterEach(() => cleanup());
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
