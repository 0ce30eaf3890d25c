import { lookup } from 'node:dns/promises';

/** Resolves a host name to every address it has; the one resolution web_fetch makes per hop. */
export interface HostResolver {
  resolve(hostname: string, signal: AbortSignal): Promise<readonly string[]>;
}

/** The operating system's resolver (`getaddrinfo`), all addresses in its order. */
export const systemHostResolver: HostResolver = {
  async resolve(hostname, signal) {
    signal.throwIfAborted();
    const answers = await lookup(hostname, { all: true, verbatim: true });
    signal.throwIfAborted();
    return answers.map((answer) => answer.address);
  },
};
