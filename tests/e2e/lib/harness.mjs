// Shared helpers for labgate's end-to-end tests: binaries, temp dirs, child services.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
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

// Starts a labgate service binary on 127.0.0.1:0 and resolves once its port file exists.
export async function startService(binary, extraArgs = [], { timeoutMs = 15000 } = {}) {
  const dir = tempDir('labgate-svc-');
  const portFile = join(dir, 'port');
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

// Connects the official MCP SDK client to `labgate` spawned over stdio.
// `capabilities` are the client's (e.g. { elicitation: {} }); `setup(client)` runs
// before connecting, to register handlers for requests from the server.
export async function connectStdio(args = [], { env = {}, capabilities, setup } = {}) {
  const transport = new StdioClientTransport({
    command: BIN.labgate,
    args,
    env: { ...process.env, ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => { stderr += chunk; });
  const client = new Client({ name: 'labgate-e2e', version: '1.0.0' },
    capabilities ? { capabilities } : undefined);
  if (setup) setup(client);
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
