import { describe, expect, it } from 'vitest';
import { generateKeyPairSync, privateDecrypt, constants } from 'node:crypto';
import { decodeName, encodeName, encryptPassword, fromWireBase64, HcsError, toWireBase64, unwrap, createHcsClient } from './index.ts';

describe('wire encoding (spec 5: Base64 with / -> _x, + -> _j, = -> _d)', () => {
  it('replaces exactly the three characters and reverses them', () => {
    expect(toWireBase64('ab/c+d==')).toBe('ab_xc_jd_d_d');
    expect(fromWireBase64('ab_xc_jd_d_d')).toBe('ab/c+d==');
  });

  it('round-trips names with every kind of character', () => {
    for (const name of ['report.pdf', '季度报告 (终版).docx', 'a?b', '????', '>>>', 'emoji 😀.txt', ' x']) {
      const wire = encodeName(name);
      expect(wire).toMatch(/^[A-Za-z0-9_]+$/);
      expect(decodeName(wire)).toBe(name);
    }
    // '????' encodes to Base64 with '/' and '>>>' to Base64 with '+', so both replacements are exercised.
    expect(encodeName('????')).toContain('_x');
    expect(encodeName('>>>')).toContain('_j');
  });

  it('refuses malformed wire names', () => {
    expect(() => decodeName('abc=')).toThrow();
    expect(() => decodeName('ab_q')).toThrow();
    expect(() => decodeName('_w__')).toThrow();
  });
});

describe('encryptPassword', () => {
  it('produces RSA-OAEP SHA-256 ciphertext in wire Base64 that the private key opens', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const wire = await encryptPassword(pem, 'Pässwörd-密码-1');
    expect(wire).toMatch(/^[A-Za-z0-9_]+$/);
    const plain = privateDecrypt(
      { key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(fromWireBase64(wire), 'base64'),
    ).toString('utf8');
    expect(plain).toBe('Pässwörd-密码-1');
    // Randomised padding: the same password never gives the same ciphertext.
    expect(await encryptPassword(pem, 'Pässwörd-密码-1')).not.toBe(wire);
  });
});

describe('unwrap', () => {
  const res = (status: number) => new Response(null, { status, statusText: `status ${status}` });

  it('returns a ret 0 envelope', () => {
    const env = { ret: 0, msg: 'success', data: { a: 1 } };
    expect(unwrap({ data: env, response: res(200) })).toBe(env);
  });

  it('turns a failure envelope into HcsError with the stable code, trace id and retry hint', () => {
    const err = (() => {
      try {
        unwrap({ error: { ret: 1, msg: 'slow down', data: { code: 'RATE_LIMITED', traceId: 't1', retryAfterSeconds: 30 } }, response: res(429) });
      } catch (e) {
        return e as HcsError;
      }
      throw new Error('did not throw');
    })();
    expect(err).toBeInstanceOf(HcsError);
    expect(err).toMatchObject({ status: 429, ret: 1, code: 'RATE_LIMITED', message: 'slow down', traceId: 't1', retryAfterSeconds: 30 });
  });

  it('treats a 200 with a non-zero ret (other /hcs backends) as a failure', () => {
    expect(() => unwrap({ data: { ret: 2, msg: 'upload security', data: null }, response: res(200) })).toThrow(HcsError);
  });

  it('names a bare HTTP failure by its status', () => {
    try {
      unwrap({ response: res(502) });
    } catch (e) {
      expect((e as HcsError).code).toBe('HTTP_502');
      return;
    }
    throw new Error('did not throw');
  });
});

describe('createHcsClient', () => {
  it('sends the CSRF header, a trace id, the token and the user name on every call', async () => {
    let seen: Headers | undefined;
    const client = createHcsClient({
      baseUrl: 'http://drive.test/',
      token: () => 'tok',
      userName: () => '张三',
      // openapi-fetch calls fetch with a Request.
      fetch: (async (req: Request) => {
        seen = req.headers;
        return new Response(JSON.stringify({ ret: 0, msg: 'ok', data: { ip: '1.2.3.4' } }), { headers: { 'content-type': 'application/json' } });
      }) as typeof fetch,
    });
    const out = unwrap(await client.GET('/hcs/services/System/requestIp', {}));
    expect(out.data).toEqual({ ip: '1.2.3.4' });
    expect(seen?.get('X-Requested-With')).toBe('XMLHttpRequest');
    expect(seen?.get('traceId')).toMatch(/^[0-9a-f]{24}$/);
    expect(seen?.get('token')).toBe('tok');
    expect(decodeURIComponent(seen?.get('userName') ?? '')).toBe('张三');
  });
});
