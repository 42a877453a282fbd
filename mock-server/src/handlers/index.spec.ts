import { describe, it, expect } from 'vitest';
import type { Handlers } from '../context.ts';
import { ok } from '../http/envelope.ts';
import { mergeHandlers } from './index.ts';

const answering = (ip: string): Handlers => ({ getRequestIp: async () => ok({ ip }) });

describe('mergeHandlers', () => {
  it('refuses two modules handling the same operation, naming it and both modules', () => {
    expect(() => mergeHandlers({ session: answering('a'), network: answering('b') })).toThrow(
      /getRequestIp is handled by both the session and the network handler modules/,
    );
  });

  it('keeps every handler of modules that do not overlap', async () => {
    const merged = mergeHandlers({ session: answering('a'), static: { getSystemLanguage: async () => ok('zh_CN' as const) } });
    expect(Object.keys(merged).sort()).toEqual(['getRequestIp', 'getSystemLanguage']);
  });
});
