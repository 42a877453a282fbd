import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compareKeys, insertSorted, listKeys } from './listing.ts';
import { parseRange } from './range.ts';
import { childText, el, parseXml, xmlDocument } from './xml.ts';

describe('key order', () => {
  it('matches UTF-8 byte order, astral characters included', () => {
    const alphabet = ['a', 'b', '/', 'é', '\u{ffef}', '\u{e000}', '😀', '\u{10400}', '0', '~'];
    for (let round = 0; round < 2000; round++) {
      const make = () => Array.from({ length: randomInt(0, 4) }, () => alphabet[randomInt(0, alphabet.length)]).join('');
      const a = make();
      const b = make();
      expect(Math.sign(compareKeys(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
    }
  });
});

describe('listKeys', () => {
  const keys: string[] = [];
  for (const k of ['a/1', 'a/2', 'a/b/1', 'b', 'b/x', 'c', 'c/', 'd/1']) insertSorted(keys, k);

  it('rolls keys up into common prefixes', () => {
    expect(listKeys(keys, { prefix: '', delimiter: '/', maxKeys: 1000 })).toEqual({
      keys: ['b', 'c'], commonPrefixes: ['a/', 'b/', 'c/', 'd/'], isTruncated: false, last: 'd/',
    });
    expect(listKeys(keys, { prefix: 'a/', delimiter: '/', maxKeys: 1000 })).toMatchObject({ keys: ['a/1', 'a/2'], commonPrefixes: ['a/b/'] });
  });

  it('pages without repeating or skipping entries', () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = listKeys(keys, { prefix: '', delimiter: '/', maxKeys: 2, after });
      seen.push(...page.keys, ...page.commonPrefixes);
      if (!page.isTruncated) break;
      after = page.last;
    }
    expect(seen.sort()).toEqual(['a/', 'b', 'b/', 'c', 'c/', 'd/']);
  });

  it('is not truncated when the page ends exactly at the last key', () => {
    expect(listKeys(keys, { prefix: 'a/', maxKeys: 3 })).toMatchObject({ keys: ['a/1', 'a/2', 'a/b/1'], isTruncated: false });
  });
});

describe('parseRange', () => {
  it.each([
    ['bytes=0-9', 100, { kind: 'partial', start: 0, end: 9 }],
    ['bytes=90-', 100, { kind: 'partial', start: 90, end: 99 }],
    ['bytes=-10', 100, { kind: 'partial', start: 90, end: 99 }],
    ['bytes=-1000', 100, { kind: 'partial', start: 0, end: 99 }],
    ['bytes=50-5000', 100, { kind: 'partial', start: 50, end: 99 }],
    ['bytes=100-', 100, { kind: 'unsatisfiable' }],
    ['bytes=-0', 100, { kind: 'unsatisfiable' }],
    ['bytes=0-', 0, { kind: 'unsatisfiable' }],
    ['bytes=9-3', 100, { kind: 'full' }],
    ['bytes=0-1,5-6', 100, { kind: 'full' }],
    ['items=0-1', 100, { kind: 'full' }],
  ] as const)('%s of %i bytes', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});

describe('xml', () => {
  it('escapes text, including characters XML 1.0 cannot carry raw', () => {
    expect(xmlDocument(el('Key', 'a<b>&"\'\u0001'), null)).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<Key>a&lt;b&gt;&amp;&quot;&apos;&#x1;</Key>');
  });

  it('parses what the SDK sends and round-trips entity-encoded keys', () => {
    const doc = parseXml('<?xml version="1.0" encoding="UTF-8"?><Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Object><Key>a&amp;b &lt;c&gt; &#x1F600;</Key></Object><Quiet>true</Quiet></Delete>');
    expect(doc.name).toBe('Delete');
    expect(childText(doc.children[0]!, 'Key')).toBe('a&b <c> 😀');
    expect(childText(doc, 'Quiet')).toBe('true');
  });

  it('rejects DTDs, unknown entities and broken nesting', () => {
    expect(() => parseXml('<!DOCTYPE x [<!ENTITY e "boom">]><Delete>&e;</Delete>')).toThrow();
    expect(() => parseXml('<Delete>&e;</Delete>')).toThrow();
    expect(() => parseXml('<Delete><Object></Delete></Object>')).toThrow();
    expect(() => parseXml('<Delete></Delete><Delete></Delete>')).toThrow();
  });
});
