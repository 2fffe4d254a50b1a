// Shared helpers for labgate's end-to-end tests: binaries, temp dirs, child services.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const BIN = {
  labgate: process.env.LABGATE_BIN,
  session: process.env.LABGATE_SESSION_BIN,
  serial: process.env.LABGATE_SERIAL_BIN,
  actions: process.env.LABGATE_ACTIONS_BIN,
};

export function tempDir(prefix = 'labgate-e2e-') {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}

// The gateway token of this test file's deployments: every labgate-serial the suite starts
// trusts it, and every gateway given a --serial-addr presents it, as a split deployment is
// configured. A test about credentials passes its own flags instead.
let gatewayTokenFile;
export function gatewayToken() {
  if (gatewayTokenFile === undefined) {
    const dir = tempDir('labgate-token-');
    gatewayTokenFile = join(dir, 'gateway.token');
    writeFileSync(gatewayTokenFile, `${randomBytes(24).toString('hex')}\n`, { mode: 0o600 });
    process.on('exit', () => removeDir(dir));
  }
  return gatewayTokenFile;
}

const CREDENTIAL_FLAGS = ['--gateway-token-file', '--client-token-file', '--trusted-gateway'];
const hasFlag = (args, flag) => args.some((arg) => arg === flag || arg.startsWith(`${flag}=`));

// Starts a labgate service binary on 127.0.0.1:0 and resolves once its port file exists.
export async function startService(binary, extraArgs = [], { timeoutMs = 15000 } = {}) {
  const dir = tempDir('labgate-svc-');
  const portFile = join(dir, 'port');
  if (binary === BIN.serial && !CREDENTIAL_FLAGS.some((flag) => hasFlag(extraArgs, flag))) {
    extraArgs = [...extraArgs, '--gateway-token-file', gatewayToken()];
  }
  const child = spawn(binary, ['--listen', '127.0.0.1:0', '--port-file', portFile, ...extraArgs], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(portFile) || readFileSync(portFile, 'utf8').trim() === '') {
    if (child.exitCode !== null) throw new Error(`${binary} exited early: ${stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${binary} did not report a port: ${stderr}`);
    }
    await sleep(20);
  }
  const port = Number(readFileSync(portFile, 'utf8').trim());
  return {
    child, port, address: `127.0.0.1:${port}`, exited, stderr: () => stderr,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const result = await exited;
      removeDir(dir);
      return result;
    },
  };
}

// With LABGATE_E2E_SPLIT=1 the same suites run against a split deployment: labgate-session,
// labgate-actions and labgate-serial as separate processes on 127.0.0.1, started once per test
// file, which every gateway the suite spawns calls over gRPC, presenting the gateway token
// labgate-serial trusts. Otherwise labgate embeds them.
export const SPLIT = process.env.LABGATE_E2E_SPLIT === '1';
let splitDeployment;

// A gateway that calls a labgate-serial of the suite presents the suite's gateway token.
function withGatewayToken(args) {
  if (!hasFlag(args, '--serial-addr') || hasFlag(args, '--gateway-token-file')) return args;
  return [...args, '--gateway-token-file', gatewayToken()];
}

export function gatewayArgs(args) {
  if (!SPLIT) return Promise.resolve(withGatewayToken(args));
  splitDeployment ??= (async () => {
    const dir = tempDir('labgate-split-');
    const session = await startService(BIN.session, ['--data-dir', dir]);
    const actions = await startService(BIN.actions);
    const serial = await startService(BIN.serial, ['--session-addr', session.address]);
    // They live as long as the test file's process, without keeping it alive.
    for (const service of [serial, actions, session]) {
      service.child.unref();
      service.child.stderr.unref();
    }
    process.on('exit', () => {
      for (const service of [serial, actions, session]) service.child.kill('SIGKILL');
      removeDir(dir);
    });
    // The split runs serve on one io thread, the embedded ones on the default two, so every
    // suite covers both.
    return ['--session-addr', session.address, '--actions-addr', actions.address,
      '--serial-addr', serial.address, '--io-threads', '1'];
  })();
  // A test that names its own service for a flag keeps it (--serial-addr repeats make benches).
  return splitDeployment.then((split) => {
    const kept = [];
    for (let i = 0; i < split.length; i += 2) {
      if (!args.includes(split[i])) kept.push(split[i], split[i + 1]);
    }
    return withGatewayToken([...kept, ...args]);
  });
}

// Connects the official MCP SDK client to `labgate` spawned over stdio.
// `capabilities` are the client's (e.g. { elicitation: {} }); `setup(client)` runs
// before connecting, to register handlers for requests from the server.
export async function connectStdio(args = [], { env = {}, capabilities, setup } = {}) {
  const transport = new StdioClientTransport({
    command: BIN.labgate,
    args: await gatewayArgs(args),
    env: { ...process.env, ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  let closing = false;
  transport.stderr?.on('data', (chunk) => { stderr += chunk; });
  // A gateway that exits before the test closes it (a sanitizer's report, a crash) says why
  // on stderr; the test's own failure would only say "Connection closed".
  transport.stderr?.on('end', () => {
    if (!closing) process.stderr.write(`labgate exited before the test closed it; its stderr:\n${stderr}\n`);
  });
  const client = new Client({ name: 'labgate-e2e', version: '1.0.0' },
    capabilities ? { capabilities } : undefined);
  if (setup) setup(client);
  const close = client.close.bind(client);
  client.close = async () => {
    closing = true;
    await close();
  };
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

export async function callOk(client, name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) {
    throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  }
  return result.structuredContent;
}
