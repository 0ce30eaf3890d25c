import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { allHomes, bubblewrapArgs, isHostAllowed, scrubEnvironment, seatbeltProfile, type SandboxPolicy } from '../../../tools/index.js';

const POLICY: SandboxPolicy = {
  workspace: '/work/repo',
  readOnly: ['/work/repo/.git', '/work/repo/.dagent'],
  hidden: [
    { path: '/home/me/.ssh', kind: 'directory' },
    { path: '/home/me/.netrc', kind: 'file' },
  ],
  tempDir: '/tmp',
  network: { kind: 'none' },
};

describe('bubblewrapArgs', () => {
  it('keeps dagent\'s own install visible, read-only, when it lives under the private /tmp', () => {
    const args = bubblewrapArgs({ ...POLICY, visible: ['/tmp/ci-clone', '/usr/local/bin'] });
    const tmpfs = args.indexOf('/tmp', args.indexOf('--tmpfs'));
    const bound = args.indexOf('/tmp/ci-clone');
    expect(args.slice(bound - 1, bound + 2)).toEqual(['--ro-bind', '/tmp/ci-clone', '/tmp/ci-clone']);
    expect(bound).toBeGreaterThan(tmpfs);
    expect(args).not.toContain('/usr/local/bin');
  });

  it('mounts sandbox.readPaths read-only under the workspace\'s own mount, and reveals a credential store only when named itself', () => {
    const args = bubblewrapArgs({ ...POLICY, readPaths: ['/tmp/checkout', '/work', '/home/me', '/home/me/.ssh/known_hosts'] });
    const order = (flag: string, path: string): number => args.findIndex((arg, index) => arg === flag && args[index + 1] === path);
    for (const path of ['/tmp/checkout', '/work', '/home/me']) {
      expect(order('--ro-bind-try', path)).toBeGreaterThan(order('--tmpfs', '/tmp'));
      expect(order('--ro-bind-try', path)).toBeLessThan(order('--bind', '/work/repo'));
    }
    expect(order('--tmpfs', '/home/me/.ssh')).toBeGreaterThan(order('--ro-bind-try', '/home/me'));
    expect(order('--ro-bind-try', '/home/me/.ssh/known_hosts')).toBeGreaterThan(order('--tmpfs', '/home/me/.ssh'));
    expect(args.filter((arg) => arg === '--bind')).toHaveLength(1);
  });

  it('mounts everything read-only, then the workspace writable, then .git and .dagent read-only again, then hides credentials', () => {
    const args = bubblewrapArgs(POLICY);
    const order = (flag: string, path: string): number => args.findIndex((arg, index) => arg === flag && args[index + 1] === path);
    expect(args.slice(0, 3)).toEqual(['--ro-bind', '/', '/']);
    expect(order('--tmpfs', '/tmp')).toBeLessThan(order('--bind', '/work/repo'));
    expect(order('--bind', '/work/repo')).toBeLessThan(order('--ro-bind', '/work/repo/.git'));
    expect(order('--ro-bind', '/work/repo/.git')).toBeGreaterThan(0);
    expect(order('--ro-bind', '/work/repo/.dagent')).toBeGreaterThan(0);
    expect(args.join(' ')).toContain('--tmpfs /home/me/.ssh --remount-ro /home/me/.ssh');
    expect(args.join(' ')).toContain('--ro-bind /dev/null /home/me/.netrc');
  });

  it('cuts the network, isolates processes and ties them to dagent', () => {
    const args = bubblewrapArgs(POLICY);
    for (const flag of ['--unshare-net', '--unshare-pid', '--die-with-parent', '--new-session']) expect(args).toContain(flag);
    expect(args.slice(-2)).toEqual(['--chdir', '/work/repo']);
  });

  it('drops every capability, and given a confinement, adds a user namespace, no nested ones and the seccomp program', () => {
    expect(bubblewrapArgs(POLICY)).toEqual(expect.arrayContaining(['--cap-drop', 'ALL']));
    const args = bubblewrapArgs(POLICY, { userNamespace: { uid: 65534, gid: 65534 }, noNestedUserNamespaces: true, seccompFd: 9 }).join(' ');
    expect(args).toContain('--unshare-user --uid 65534 --gid 65534 --disable-userns');
    expect(args).toContain('--seccomp 9');
  });

  it('mounts an empty read-only folder where .git or .dagent does not exist yet', () => {
    const args = bubblewrapArgs({ ...POLICY, readOnly: [], placeholders: ['/work/repo/.git'] }).join(' ');
    expect(args).toContain('--bind /work/repo /work/repo --tmpfs /work/repo/.git --remount-ro /work/repo/.git');
    const bound = bubblewrapArgs({ ...POLICY, readOnly: [], placeholders: ['/work/repo/.git'], emptyFolder: '/tmp/dagent-empty-1' }).join(' ');
    expect(bound).toContain('--bind /work/repo /work/repo --ro-bind /tmp/dagent-empty-1 /work/repo/.git');
  });

  it('mounts a linked worktree\'s git folders read-only: those around the workspace under its mount, one inside it over it', () => {
    const args = bubblewrapArgs({ ...POLICY, workspace: '/tmp/repo/.dagent/worktrees/r-1/wt-1', readOnly: [], gitFolders: ['/tmp/repo/.git', '/tmp/repo/.dagent/worktrees/r-1/wt-1/.modules/x'] });
    const order = (flag: string, path: string): number => args.findIndex((arg, index) => arg === flag && args[index + 1] === path);
    expect(order('--ro-bind', '/tmp/repo/.git')).toBeGreaterThan(order('--tmpfs', '/tmp'));
    expect(order('--ro-bind', '/tmp/repo/.git')).toBeLessThan(order('--bind', '/tmp/repo/.dagent/worktrees/r-1/wt-1'));
    expect(order('--ro-bind', '/tmp/repo/.dagent/worktrees/r-1/wt-1/.modules/x')).toBeGreaterThan(order('--bind', '/tmp/repo/.dagent/worktrees/r-1/wt-1'));
    expect(args.filter((arg) => arg === '--bind')).toHaveLength(1);
  });

  it('binds the allow-list proxy socket when there is one', () => {
    const args = bubblewrapArgs({ ...POLICY, network: { kind: 'proxy-socket', socketPath: '/run/p/proxy.sock', port: 3128 } });
    expect(args.join(' ')).toContain('--ro-bind /run/p/proxy.sock /tmp/.dagent-proxy.sock');
    expect(args).toContain('--unshare-net');
  });
});

describe('seatbeltProfile', () => {
  it('denies by default, writes only the workspace and temp folder, protects .git and .dagent, hides credentials', () => {
    const profile = seatbeltProfile({ ...POLICY, tempDir: '/private/var/folders/x/T/dagent-cmd-1' });
    expect(profile).toContain('(deny default)');
    expect(profile).toContain('(allow file-write* (subpath "/work/repo") (subpath "/private/var/folders/x/T/dagent-cmd-1")');
    expect(profile).toContain('(deny file-write* (subpath "/work/repo/.git"))');
    expect(profile).toContain('(deny file-write* (subpath "/work/repo/.dagent"))');
    expect(profile).toContain('(deny file-read* file-write* (subpath "/home/me/.ssh"))');
    expect(profile).toContain('(deny file-read* file-write* (literal "/home/me/.netrc"))');
    expect(profile).not.toContain('network-outbound');
    expect(seatbeltProfile({ ...POLICY, readOnly: [], placeholders: ['/work/repo/.git'] })).toContain('(deny file-write* (subpath "/work/repo/.git"))');
    expect(seatbeltProfile({ ...POLICY, gitFolders: ['/work/main/.git'] })).toContain('(deny file-write* (subpath "/work/main/.git"))');
  });

  it('allows only the proxy port on the loopback when hosts are allowed', () => {
    const profile = seatbeltProfile({ ...POLICY, network: { kind: 'proxy-port', port: 40123 } });
    expect(profile).toContain('(allow network-outbound (remote tcp "localhost:40123"))');
  });
});

describe('scrubEnvironment', () => {
  it('keeps the allow-listed variables and drops keys and tokens', () => {
    const env = scrubEnvironment({ PATH: '/bin', HOME: '/home/me', LC_ALL: 'C', OPENAI_API_KEY: 'sk-1', GITHUB_TOKEN: 'ghp', AWS_SECRET_ACCESS_KEY: 'x', MY_VAR: 'kept' }, ['MY_VAR']);
    expect(env).toEqual({ PATH: '/bin', HOME: '/home/me', LC_ALL: 'C', MY_VAR: 'kept', PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', NO_COLOR: '1', TERM: 'dumb' });
  });
});

describe('isHostAllowed', () => {
  it.each([
    ['registry.npmjs.org', ['registry.npmjs.org'], true],
    ['REGISTRY.npmjs.org.', ['registry.npmjs.org'], true],
    ['evil.org', ['registry.npmjs.org'], false],
    ['registry.npmjs.org.evil.org', ['registry.npmjs.org'], false],
    ['a.example.com', ['*.example.com'], true],
    ['example.com', ['*.example.com'], false],
    ['badexample.com', ['*.example.com'], false],
    ['', ['*.example.com'], false],
  ] as const)('%s against %j: %s', (host, list, expected) => {
    expect(isHostAllowed(host, list)).toBe(expected);
  });
});

describe('allHomes', () => {
  it('hides credentials in every home folder: /root and each folder under /home besides the given ones', () => {
    const homes = allHomes(['/var/tmp/test-home']);
    expect(homes).toEqual(expect.arrayContaining(['/var/tmp/test-home', '/root']));
    let others: string[] = [];
    try {
      others = readdirSync('/home', { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => `/home/${entry.name}`);
    } catch {
      // no /home on this machine
    }
    expect(homes).toEqual(expect.arrayContaining(others));
  });
});
