import { describe, expect, it } from 'vitest';
import { evaluateSelection, type SelectionContext } from './selection-rules.ts';

const ctx: SelectionContext = { publicPage: false, pluginTipShown: false, clientChoice: undefined };
const GB = 1024 ** 3;
const MB = 1024 ** 2;
const files = (n: number, size = 1) => Array.from({ length: n }, (_, i) => ({ name: `f${i}`, size }));

describe('evaluateSelection (spec 5 order)', () => {
  it('refuses more than 500 files and uploads nothing, even when they are also too big', () => {
    expect(evaluateSelection(files(501, 81 * GB), ctx)).toEqual({ kind: 'tooMany', count: 501 });
  });

  it('accepts exactly 500 files', () => {
    expect(evaluateSelection(files(500), ctx).kind).toBe('proceed');
  });

  it('aborts on any file above 80 GB and lists every such name', () => {
    const out = evaluateSelection(
      [{ name: 'a', size: 85_899_345_921 }, { name: 'b', size: 1 }, { name: 'c', size: 90 * GB }],
      ctx,
    );
    expect(out).toEqual({ kind: 'over80G', names: ['a', 'c'] });
  });

  it('lets exactly 80 GB through (with the 30 GB question)', () => {
    const out = evaluateSelection([{ name: 'a', size: 85_899_345_920 }], ctx);
    expect(out.kind).toBe('proceed');
    if (out.kind === 'proceed') expect(out.steps[0]).toEqual({ kind: 'noMoreThan30G', names: ['a'] });
  });

  it('asks noMoreThan30G only above 30 GB', () => {
    const at = evaluateSelection([{ name: 'a', size: 32_212_254_720 }], { ...ctx, clientChoice: 'web' });
    const above = evaluateSelection([{ name: 'a', size: 32_212_254_721 }], { ...ctx, clientChoice: 'web' });
    expect(at).toMatchObject({ kind: 'proceed', steps: [{ kind: 'pluginTip' }] });
    expect(above).toMatchObject({ kind: 'proceed', steps: [{ kind: 'noMoreThan30G' }, { kind: 'pluginTip' }] });
  });

  it('reports an empty selection', () => {
    expect(evaluateSelection([], ctx)).toEqual({ kind: 'empty' });
  });

  it('shows the plugin tip from 500 MB total or more than 50 files, once per session', () => {
    expect(evaluateSelection([{ name: 'a', size: 500 * MB - 1 }], ctx)).toMatchObject({ steps: [] });
    expect(evaluateSelection([{ name: 'a', size: 500 * MB }], ctx)).toMatchObject({ steps: [{ kind: 'pluginTip' }] });
    expect(evaluateSelection(files(50), ctx)).toMatchObject({ steps: [] });
    expect(evaluateSelection(files(51), ctx)).toMatchObject({ steps: [{ kind: 'pluginTip' }] });
    expect(evaluateSelection(files(51), { ...ctx, pluginTipShown: true })).toMatchObject({ steps: [] });
  });

  it('asks for the desktop client from 1 GB, once per session, and remembers the answer', () => {
    expect(evaluateSelection([{ name: 'a', size: GB - 1 }], { ...ctx, pluginTipShown: true })).toMatchObject({ steps: [] });
    expect(evaluateSelection([{ name: 'a', size: GB }], { ...ctx, pluginTipShown: true })).toMatchObject({
      steps: [{ kind: 'clientChoice' }],
      useClient: false,
    });
    expect(evaluateSelection([{ name: 'a', size: GB }], { ...ctx, pluginTipShown: true, clientChoice: 'client' })).toMatchObject({
      steps: [],
      useClient: true,
    });
  });

  it('never asks about the plugin or client on the public page', () => {
    expect(evaluateSelection([{ name: 'a', size: 40 * GB }], { ...ctx, publicPage: true })).toEqual({
      kind: 'proceed',
      steps: [{ kind: 'noMoreThan30G', names: ['a'] }],
      totalBytes: 40 * GB,
      useClient: false,
    });
  });
});
