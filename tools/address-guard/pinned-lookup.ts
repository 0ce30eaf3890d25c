import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `dns.lookup` stand-in that always answers `address`, in the single or `all` form the caller asked for. */
export function pinnedLookup(address: string): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  const family = isIP(address);
  return (_hostname, options, callback) => {
    if (options?.all === true) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}
