// @vitest-environment node
// Every error code a server may answer has a message in both languages: the codes the contract lists
// (openapi/dist/hcs.json, ErrorData.code) and the ones the server's ErrorCode type can raise. A code added to either
// without its two messages fails here, before a user meets the server's English text or a raw code.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PARAM_VARIANTS } from '../app/error-message.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const LANGS = ['zh_CN', 'en_US'] as const;

type Tree = { [k: string]: unknown };

function errorsTree(lang: string): { codes: Tree; param: Tree } {
  const tree = JSON.parse(readFileSync(join(import.meta.dirname, lang, 'errors.json'), 'utf8')) as { errors: { codes?: Tree; param?: Tree } };
  return { codes: tree.errors.codes ?? {}, param: tree.errors.param ?? {} };
}

/** The codes ErrorData.code of the bundled contract lists (an enum, or the "Known codes:" list of its description). */
function contractCodes(): string[] {
  const doc = JSON.parse(readFileSync(join(ROOT, 'openapi', 'dist', 'hcs.json'), 'utf8')) as {
    components: { schemas: { ErrorData: { properties: { code: { enum?: string[]; description?: string } } } } };
  };
  const code = doc.components.schemas.ErrorData.properties.code;
  if (code.enum) return code.enum;
  const list = /Known codes:([\s\S]*)/.exec(code.description ?? '')?.[1] ?? '';
  return [...list.matchAll(/\b[A-Z][A-Z0-9_]+\b/g)].map((m) => m[0]);
}

/** The members of the server's ErrorCode union (mock-server/src/http/errors.ts). */
function serverCodes(): string[] {
  const src = readFileSync(join(ROOT, 'mock-server', 'src', 'http', 'errors.ts'), 'utf8');
  const union = /export type ErrorCode\s*=([^;]*);/.exec(src)?.[1] ?? '';
  return [...union.matchAll(/'([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1]!);
}

const CJK = /[\u3400-\u9fff]/;

describe('error code messages', () => {
  const contract = contractCodes();
  const server = serverCodes();

  it('reads the code lists (the scanners work)', () => {
    expect(contract).toEqual(expect.arrayContaining(['NOT_FOUND', 'NAME_EXISTS', 'LOGIN_FAILED', 'RATE_LIMITED', 'NOT_IMPLEMENTED']));
    expect(server).toEqual(expect.arrayContaining(['BAD_REQUEST', 'NOT_FOUND', 'INTERNAL']));
  });

  it.each(LANGS)('every code of the contract and of the server has a message in %s', (lang) => {
    const { codes } = errorsTree(lang);
    const missing = [...new Set([...contract, ...server])].filter((c) => typeof codes[c] !== 'string' || (codes[c] as string).trim() === '');
    expect(missing).toEqual([]);
  });

  it('the Chinese messages are Chinese', () => {
    for (const tree of [errorsTree('zh_CN').codes, errorsTree('zh_CN').param]) {
      const english = Object.entries(tree).filter(([, v]) => typeof v !== 'string' || !CJK.test(v));
      expect(english.map(([k]) => k)).toEqual([]);
    }
  });

  it.each(LANGS)('the plain messages in %s need no parameter (a caller may know none)', (lang) => {
    const { codes } = errorsTree(lang);
    expect(Object.entries(codes).filter(([, v]) => typeof v === 'string' && v.includes('{{')).map(([k]) => k)).toEqual([]);
  });

  it.each(LANGS)('every parameter variant exists in %s and names its parameter', (lang) => {
    const { param } = errorsTree(lang);
    const bad = Object.entries(PARAM_VARIANTS).filter(([code, name]) => typeof param[code] !== 'string' || !(param[code] as string).includes(`{{${name}}}`));
    expect(bad.map(([c]) => c)).toEqual([]);
  });
});
