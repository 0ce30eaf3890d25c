import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

/**
 * Runs inside a bubblewrap sandbox that has no network: listens on the sandbox's own loopback
 * and carries each connection to the allow-list proxy's Unix socket, then runs the command and
 * exits with its status. Usage: `node proxy-bridge.js SOCKET PORT -- PROGRAM ARGS…`.
 */
function main(argv: readonly string[]): void {
  const [socketPath, port, separator, program, ...args] = argv;
  if (socketPath === undefined || port === undefined || separator !== '--' || program === undefined) {
    process.stderr.write('usage: proxy-bridge SOCKET PORT -- PROGRAM ARGS…\n');
    process.exit(2);
  }
  const server = createServer((client) => {
    const upstream = connect(socketPath);
    client.pipe(upstream);
    upstream.pipe(client);
    const close = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
  });
  server.listen(Number(port), '127.0.0.1', () => {
    const child = spawn(program, args, { stdio: 'inherit' });
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
    child.on('error', (error) => {
      process.stderr.write(`${program}: ${error.message}\n`);
      process.exit(127);
    });
    child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128 + 15)));
  });
}

main(process.argv.slice(2));
