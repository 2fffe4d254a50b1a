// Starts `labgate --http 127.0.0.1:0` as a child process and connects official SDK
// clients to it over Streamable HTTP.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BIN, gatewayArgs, tempDir, removeDir } from './harness.mjs';

export async function startHttpGateway(extraArgs = [], { timeoutMs = 20000 } = {}) {
  const dir = tempDir('labgate-http-');
  const portFile = join(dir, 'port');
  const child = spawn(BIN.labgate, await gatewayArgs(['--http', '127.0.0.1:0', '--http-port-file',
    portFile, '--data-dir', join(dir, 'data'), ...extraArgs]), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(portFile) || readFileSync(portFile, 'utf8').trim() === '') {
    if (child.exitCode !== null) throw new Error(`labgate exited early: ${stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`labgate did not report a port: ${stderr}`);
    }
    await sleep(20);
  }
  const port = Number(readFileSync(portFile, 'utf8').trim());
  return {
    child, port, dir, url: `http://127.0.0.1:${port}/mcp`, exited, stderr: () => stderr,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const result = await exited;
      removeDir(dir);
      return result;
    },
  };
}

export async function connectHttp(url, { name = 'labgate-http-e2e', capabilities = {}, requestInit } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), requestInit ? { requestInit } : undefined);
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  return { client, transport };
}

// One raw JSON-RPC POST; returns { status, headers, text, json }.
export async function post(url, body, { session, headers = {}, version } = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(session ? { 'Mcp-Session-Id': session } : {}),
      ...(version ? { 'MCP-Protocol-Version': version } : {}),
      ...headers,
    },
    body,
  });
  const text = await response.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: response.status, headers: response.headers, text, json };
}

// initialize + notifications/initialized over raw POSTs; returns the session id.
export async function rawInitialize(url, version = '2025-11-25') {
  const init = await post(url, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }));
  if (init.status !== 200) throw new Error(`initialize: HTTP ${init.status} ${init.text}`);
  const session = init.headers.get('mcp-session-id');
  const note = await post(url, '{"jsonrpc":"2.0","method":"notifications/initialized"}', { session, version });
  if (note.status !== 202) throw new Error(`initialized: HTTP ${note.status}`);
  return session;
}
