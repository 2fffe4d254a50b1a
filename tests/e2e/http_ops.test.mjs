// Operating the HTTP transport: liveness and readiness, bearer tokens with the SDK
// client, and --stdio beside --http.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { BIN, tempDir, removeDir } from './lib/harness.mjs';
import { startHttpGateway, connectHttp, post } from './lib/http_gateway.mjs';

test('liveness and readiness with embedded backends, and readiness failing on a dead backend', async () => {
  const gw = await startHttpGateway();
  const base = `http://127.0.0.1:${gw.port}`;
  for (const path of ['/health', '/healthz']) assert.equal((await fetch(base + path)).status, 200);
  const ready = await fetch(base + '/readyz');
  assert.equal(ready.status, 200);
  assert.equal((await ready.json()).status, 'ready');
  await gw.stop();

  const dead = await startHttpGateway(['--session-addr', '127.0.0.1:1']);
  const deadBase = `http://127.0.0.1:${dead.port}`;
  assert.equal((await fetch(deadBase + '/healthz')).status, 200, 'alive even when a backend is not');
  const notReady = await fetch(deadBase + '/readyz');
  assert.equal(notReady.status, 503);
  assert.match((await notReady.json()).detail, /session service at 127\.0\.0\.1:1: /);
  await dead.stop();
});

test('bearer tokens: 401 with WWW-Authenticate without one, the SDK client works with one', async () => {
  const dir = tempDir();
  const tokens = join(dir, 'tokens');
  writeFileSync(tokens, '# lab tokens\nalpha-token\nbeta-token\n');
  const gw = await startHttpGateway(['--auth-token-file', tokens]);
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'a', version: '1' } } });
  const none = await post(gw.url, init);
  assert.equal(none.status, 401);
  assert.match(none.headers.get('www-authenticate'), /^Bearer/);
  const wrong = await post(gw.url, init, { headers: { Authorization: 'Bearer nope' } });
  assert.equal(wrong.status, 401);
  const { client } = await connectHttp(gw.url, { requestInit: { headers: { Authorization: 'Bearer beta-token' } } });
  const { tools } = await client.listTools();
  assert.ok(tools.length > 0);
  await client.close();
  await gw.stop();
  removeDir(dir);
});

test('--stdio beside --http serves both', async () => {
  const dir = tempDir();
  const portFile = join(dir, 'port');
  const child = spawn(BIN.labgate, ['--http', ':0', '--http-port-file', portFile, '--stdio',
    '--data-dir', join(dir, 'data')], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  child.stdin.write('{"jsonrpc":"2.0","id":"s","method":"ping"}\n');
  const deadline = Date.now() + 15000;
  while (!stdout.includes('"id":"s"')) {
    assert.ok(Date.now() < deadline, 'stdio answered');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const { readFileSync } = await import('node:fs');
  const port = Number(readFileSync(portFile, 'utf8').trim());
  assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
  child.stdin.end();
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
  removeDir(dir);
});
