// @vitest-environment node
// Every error code a server may answer has a message in both languages. The codes are the contract's ErrorCode enum
// (openapi/src/components/common.yaml), which the server's AppError, the CLI and this app take their code types from:
// a code added to the contract without its two messages fails here, before a user meets the server's English text or
// a raw code.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '../api/gen/model/errorCode.ts';
import { PARAM_VARIANTS } from '../shared/error-message.ts';

const LANGS = ['zh_CN', 'en_US'] as const;

type Tree = { [k: string]: unknown };

function errorsTree(lang: string): { codes: Tree; param: Tree } {
  const tree = JSON.parse(readFileSync(join(import.meta.dirname, lang, 'errors.json'), 'utf8')) as { errors: { codes?: Tree; param?: Tree } };
  return { codes: tree.errors.codes ?? {}, param: tree.errors.param ?? {} };
}

/** The enum ErrorData.code refers to in the bundled contract. */
function contractCodes(): string[] {
  const doc = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'openapi', 'dist', 'hcs.json'), 'utf8')) as {
    components: { schemas: Record<string, { enum?: string[]; properties?: Record<string, { $ref?: string }> }> };
  };
  const ref = doc.components.schemas.ErrorData?.properties?.code?.$ref ?? '';
  return doc.components.schemas[ref.split('/').pop() ?? '']?.enum ?? [];
}

const CJK = /[\u3400-\u9fff]/;

describe('error code messages', () => {
  const contract = contractCodes();

  it('the generated codes are the contract enum that ErrorData.code refers to', () => {
    expect(contract).toEqual(expect.arrayContaining(['BAD_REQUEST', 'NOT_FOUND', 'NAME_EXISTS', 'LOGIN_FAILED', 'INTERNAL']));
    expect(Object.values(ErrorCode)).toEqual(contract);
  });

  it.each(LANGS)('every code of the contract and of the server has a message in %s', (lang) => {
    const { codes } = errorsTree(lang);
    const missing = contract.filter((c) => typeof codes[c] !== 'string' || (codes[c] as string).trim() === '');
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
