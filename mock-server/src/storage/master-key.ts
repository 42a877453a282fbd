// The master key: it encrypts secrets the database keeps (storage connection credentials) and wraps the data key of
// every object the embedded store encrypts. It comes from HCS_MASTER_KEY (64 hex digits or base64 of 32 bytes) or,
// when that is unset, from DATA_DIR/master.key (0600, generated on first start). Every sealed value names the key
// that sealed it (an id derived from the key, never the key), so after a rotation values under the previous key are
// still opened while they are re-wrapped.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const MASTER_KEY_FILE = 'master.key';
const PREVIOUS_KEY_FILE = 'master.key.previous';

export class MasterKeyError extends Error {
  override readonly name = 'MasterKeyError';
}

export interface MasterKey {
  id: string;
  key: Buffer;
}

export function keyId(key: Buffer): string {
  // Hash of a domain-separated input: the id identifies the key without helping anyone guess it.
  return createHash('sha256').update('hcs-master-key-id').update(key).digest('hex').slice(0, 16);
}

export function parseKey(text: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (key.length !== 32) throw new MasterKeyError('the master key must be 32 bytes: 64 hex digits or base64');
  return key;
}

function readKeyFile(path: string): Buffer {
  chmodSync(path, 0o600);
  return parseKey(readFileSync(path, 'utf8'));
}

/** The current key and any previous ones still needed to open what they sealed. */
export class Keyring {
  readonly current: MasterKey;
  readonly #byId = new Map<string, Buffer>();
  /** Where the key lives: rotation writes the file; a key from the environment is rotated by its operator. */
  readonly source: 'env' | 'file';
  readonly #dataDir: string;

  private constructor(current: Buffer, previous: Buffer[], source: 'env' | 'file', dataDir: string) {
    this.current = { id: keyId(current), key: current };
    for (const k of [current, ...previous]) this.#byId.set(keyId(k), k);
    this.source = source;
    this.#dataDir = dataDir;
  }

  static load(dataDir: string, env: NodeJS.ProcessEnv = process.env): Keyring {
    const previousFile = join(dataDir, PREVIOUS_KEY_FILE);
    const previous = existsSync(previousFile) ? [readKeyFile(previousFile)] : [];
    if (env.HCS_MASTER_KEY_PREVIOUS) previous.push(parseKey(env.HCS_MASTER_KEY_PREVIOUS));
    if (env.HCS_MASTER_KEY) return new Keyring(parseKey(env.HCS_MASTER_KEY), previous, 'env', dataDir);
    const file = join(dataDir, MASTER_KEY_FILE);
    if (!existsSync(file)) {
      try {
        writeFileSync(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
      } catch (err) {
        // Another process of this data dir created it first: use theirs.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
    }
    return new Keyring(readKeyFile(file), previous, 'file', dataDir);
  }

  /** A keyring for tests and tools, with the given keys (the first is current). */
  static of(current: Buffer, ...previous: Buffer[]): Keyring {
    return new Keyring(current, previous, 'env', '');
  }

  has(id: string): boolean {
    return this.#byId.has(id);
  }

  key(id: string): Buffer {
    const key = this.#byId.get(id);
    if (!key) throw new MasterKeyError(`no master key with id ${id} (was HCS_MASTER_KEY changed without a rotation?)`);
    return key;
  }

  /**
   * A new current key in the key file, the old one kept as master.key.previous until everything sealed under it is
   * re-wrapped (then `forgetPrevious`). Returns the keyring to use from now on.
   */
  rotateFile(): Keyring {
    if (this.source !== 'file') throw new MasterKeyError('the master key comes from HCS_MASTER_KEY: set the new key there and the old one in HCS_MASTER_KEY_PREVIOUS');
    const file = join(this.#dataDir, MASTER_KEY_FILE);
    const next = randomBytes(32);
    writeFileSync(join(this.#dataDir, PREVIOUS_KEY_FILE), this.current.key.toString('hex') + '\n', { mode: 0o600 });
    writeFileSync(`${file}.new`, next.toString('hex') + '\n', { mode: 0o600 });
    renameSync(`${file}.new`, file);
    return new Keyring(next, [this.current.key, ...[...this.#byId.values()].filter((k) => !k.equals(this.current.key))], 'file', this.#dataDir);
  }

  /** Once everything is re-wrapped under the current key: the previous key file goes, and only the current key opens. */
  forgetPrevious(): Keyring {
    if (this.source === 'file') rmSync(join(this.#dataDir, PREVIOUS_KEY_FILE), { force: true });
    return new Keyring(this.current.key, [], this.source, this.#dataDir);
  }

  sealsUnderCurrent(sealed: string): boolean {
    return sealed.split(':')[1] === this.current.id;
  }
}

/** AES-256-GCM of a short secret under the current master key: `v1:<keyId>:<base64 iv|tag|ciphertext>`. */
export function seal(ring: Keyring, plaintext: Buffer, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', ring.current.key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return `v1:${ring.current.id}:${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64')}`;
}

/** Opens what `seal` sealed with the same `aad` (a value moved to another row or purpose does not open). */
export function open(ring: Keyring, sealed: string, aad: string): Buffer {
  const [v, id, body] = sealed.split(':');
  if (v !== 'v1' || !id || !body) throw new MasterKeyError('not a sealed value');
  const raw = Buffer.from(body, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', ring.key(id), raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
}

export function sealString(ring: Keyring, plaintext: string, aad: string): string {
  return seal(ring, Buffer.from(plaintext, 'utf8'), aad);
}

export function openString(ring: Keyring, sealed: string, aad: string): string {
  return open(ring, sealed, aad).toString('utf8');
}
