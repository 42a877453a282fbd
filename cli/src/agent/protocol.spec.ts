// Only the protocol's shapes get through parseMessage; everything else is BAD_MESSAGE with the caller's reqId.
import { describe, expect, it } from 'vitest';
import { parseMessage, ProtocolError, reqIdOf } from './protocol.ts';

const bad = (text: string) => {
  try {
    parseMessage(text);
  } catch (err) {
    return err instanceof ProtocolError ? err.code : 'other';
  }
  return 'accepted';
};

describe('agent protocol messages', () => {
  it('accepts the spec messages and the job controls', () => {
    expect(parseMessage('{"type":"login","reqId":"1","token":"a.b"}')).toEqual({ type: 'login', reqId: '1', token: 'a.b' });
    expect(parseMessage('{"type":"heartBeat"}')).toEqual({ type: 'heartBeat', reqId: undefined });
    expect(parseMessage('{"type":"upload","parentId":"p1","paths":["/a"]}')).toMatchObject({ parentId: 'p1', to: '/', conflict: 'newVersion', paths: ['/a'] });
    expect(parseMessage('{"type":"upload","parentId":"p1","pick":"folder","conflict":"keepBoth"}')).toMatchObject({ pick: 'folder', conflict: 'keepBoth' });
    expect(parseMessage('{"type":"download","instanceIds":["a","b"]}')).toMatchObject({ instanceIds: ['a', 'b'] });
    expect(parseMessage('{"type":"upload","parentId":"p1","paths":["/a"],"libCode":"NetDisk","instanceType":"3"}')).toMatchObject({ libCode: 'NetDisk', instanceType: '3' });
    expect(parseMessage('{"type":"upload","parentId":"p1","paths":["/a"]}')).not.toHaveProperty('libCode');
    expect(parseMessage('{"type":"delete","jobId":"j_1"}')).toMatchObject({ type: 'delete', jobId: 'j_1' });
  });

  it('refuses anything else', () => {
    for (const text of [
      'not json',
      '[]',
      '{"type":"eval"}',
      '{"type":"login"}',
      '{"type":"login","token":"a b"}',
      '{"type":"upload","parentId":"p1","paths":["/a"],"libCode":"../x"}',
      '{"type":"upload","parentId":"p1","paths":["/a"],"instanceType":"x"}',
      '{"type":"upload","parentId":"../x","paths":["/a"]}',
      '{"type":"upload","parentId":"p","paths":[]}',
      '{"type":"upload","parentId":"p","paths":["/a"],"pick":"files"}',
      '{"type":"upload","parentId":"p","pick":"anything"}',
      '{"type":"upload","parentId":"p","paths":["/a"],"conflict":"overwrite"}',
      `{"type":"download","instanceIds":${JSON.stringify(Array.from({ length: 501 }, (_, i) => `i${i}`))}}`,
      '{"type":"pause","jobId":"a/b"}',
      '{"type":"heartBeat","reqId":"has space"}',
    ]) {
      expect(bad(text), text).toBe('BAD_MESSAGE');
    }
  });

  it('finds the reqId of a refused message so the reply reaches its caller', () => {
    expect(reqIdOf('{"type":"eval","reqId":"r7"}')).toBe('r7');
    expect(reqIdOf('{"reqId":"bad id"}')).toBeUndefined();
    expect(reqIdOf('nope')).toBeUndefined();
  });
});
