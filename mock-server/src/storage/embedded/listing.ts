// Key ordering and the ListObjects walk, as pure functions over a sorted key array.

/**
 * Orders strings by their UTF-8 bytes, as S3 lists keys. JavaScript compares UTF-16 code units,
 * which disagrees with UTF-8 only between surrogates (astral characters) and U+E000..U+FFFF;
 * remapping those two ranges restores code point order, which equals UTF-8 byte order.
 */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x - y;
  }
  return a.length - b.length;
}

/** First index whose key is >= target (or > target when `strict`). */
export function lowerBound(keys: readonly string[], target: string, strict = false): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareKeys(keys[mid]!, target);
    if (c < 0 || (strict && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Inserts into a sorted array unless present; returns true when inserted. */
export function insertSorted(keys: string[], key: string): boolean {
  const i = lowerBound(keys, key);
  if (keys[i] === key) return false;
  keys.splice(i, 0, key);
  return true;
}

export function removeSorted(keys: string[], key: string): boolean {
  const i = lowerBound(keys, key);
  if (keys[i] !== key) return false;
  keys.splice(i, 1);
  return true;
}

export interface ListKeysInput {
  prefix: string;
  delimiter?: string;
  maxKeys: number;
  /** Exclusive lower bound: start-after, marker, or the decoded continuation token. */
  after?: string;
}

export interface ListKeysResult {
  keys: string[];
  commonPrefixes: string[];
  isTruncated: boolean;
  /** Last key or common prefix returned; the resume point when truncated. */
  last?: string;
}

export function listKeys(sorted: readonly string[], input: ListKeysInput): ListKeysResult {
  const { prefix, delimiter, maxKeys, after } = input;
  let i = lowerBound(sorted, prefix);
  if (after !== undefined) i = Math.max(i, lowerBound(sorted, after, true));
  const keys: string[] = [];
  const commonPrefixes: string[] = [];
  let last: string | undefined;
  let isTruncated = false;
  while (i < sorted.length) {
    const key = sorted[i]!;
    if (!key.startsWith(prefix)) break;
    const cut = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
    const entry = cut >= 0 ? key.slice(0, cut + delimiter!.length) : key;
    // A common prefix at or before the resume point was already returned on an earlier page.
    const alreadyListed = cut >= 0 && after !== undefined && compareKeys(entry, after) <= 0;
    if (!alreadyListed) {
      if (keys.length + commonPrefixes.length >= maxKeys) {
        isTruncated = true;
        break;
      }
      if (cut >= 0) commonPrefixes.push(entry);
      else keys.push(entry);
      last = entry;
    }
    i = cut >= 0 ? endOfPrefix(sorted, entry, i) : i + 1;
  }
  return { keys, commonPrefixes, isTruncated, last };
}

/** Index of the first key at or after `from` that does not start with `prefix` (keys sharing it are contiguous). */
function endOfPrefix(sorted: readonly string[], prefix: string, from: number): number {
  let lo = from;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]!.startsWith(prefix)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
