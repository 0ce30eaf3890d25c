import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';

/**
 * The code cache's seal: each cache file is `MAGIC`, an HMAC-SHA256 of its name and data, then the
 * data V8 wrote. V8 accepts cache data compiled from any source of the same length, so data nobody
 * checked would run whatever its writer compiled; a file whose seal does not match is discarded.
 *
 * The key is 32 random bytes in `~/.config/dagent/code-cache.key` (made on first use, mode 0600):
 * the sandbox hides `~/.config/dagent` of every home from every command, so no command can read it
 * and seal data of its own. The file's name carries the hash of the chunk's source and the key's
 * id, and is sealed with the data, so sealed data for one chunk does not pass for another.
 */
const MAGIC = Buffer.from('DGC1');
const MAC_BYTES = 32;

export type Unsealed = { readonly data: Buffer } | { readonly rejected: true };

export class CodeCacheSeal {
  /**
   * Names this key in the cache files' names: users (or `HOME`s) sharing one cache folder each
   * read only their own files, so a file sealed with another key is never taken for a forged one.
   */
  readonly id: string;

  private constructor(private readonly key: Buffer) {
    this.id = createHmac('sha256', key).update('dagent code cache id').digest('base64url').slice(0, 10);
  }

  /** The seal with this user's key (made when missing); undefined when there is no key to be had (then no cache). */
  static open(keyFile: string = defaultKeyFile()): CodeCacheSeal | undefined {
    const key = readKey(keyFile) ?? makeKey(keyFile);
    return key === undefined ? undefined : new CodeCacheSeal(key);
  }

  seal(file: string, data: Buffer): Buffer {
    return Buffer.concat([MAGIC, this.mac(file, data), data]);
  }

  /** The data of a sealed file, or `rejected` when the seal is missing or wrong. */
  unseal(file: string, sealed: Buffer): Unsealed {
    const header = MAGIC.length + MAC_BYTES;
    if (sealed.length < header || !sealed.subarray(0, MAGIC.length).equals(MAGIC)) return { rejected: true };
    const data = sealed.subarray(header);
    return timingSafeEqual(sealed.subarray(MAGIC.length, header), this.mac(file, data)) ? { data } : { rejected: true };
  }

  private mac(file: string, data: Buffer): Buffer {
    return createHmac('sha256', this.key).update(basename(file)).update('\0').update(data).digest();
  }
}

function defaultKeyFile(): string {
  return join(homedir(), '.config', 'dagent', 'code-cache.key');
}

function readKey(file: string): Buffer | undefined {
  try {
    const key = readFileSync(file);
    return key.length >= 32 ? key : undefined;
  } catch {
    return undefined;
  }
}

function makeKey(file: string): Buffer | undefined {
  try {
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(file, randomBytes(32), { mode: 0o600, flag: 'wx' });
  } catch {
    // another process made it first (then it is read below), or the folder is not writable
  }
  return readKey(file);
}
