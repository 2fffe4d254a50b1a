// One access line per request, for every dialect (stateful MCP, stateless 2026 MCP, loaf,
// the v0.1 envelope) on stdio and both MCP eras over HTTP: an RFC 3339 time with its date,
// the dialect, principal, method, tool, duration and outcome. With --log-format json every
// stderr line is one JSON object carrying the same fields as keys of their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { callOk, tempDir, removeDir } from './lib/harness.mjs';
import { startHttpGateway, connectHttp, post } from './lib/http_gateway.mjs';
import { RawGateway } from './lib/raw_gateway.mjs';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// One request of each kind on one stdio connection; returns how many requests were sent.
async function everyDialect(gw) {
  await gw.initialize();                                                          // mcp
  await gw.request(1, 'tools/call', { name: 'open_port', arguments: { port_name: 'loop://a', baud_rate: 9600 } });
  await gw.request(2, 'ping');                                                    // mcp, answered by the reader
  await gw.request(3, 'made/up');                                                 // mcp, unknown
  await gw.request(4, 'tools/call', { name: 'list_sessions', arguments: {}, _meta: META });  // mcp-2026
  await gw.request(5, 'rpc.handshake', {});                                       // loaf
  await gw.request(6, 'system.ping', {});                                         // loaf
  await gw.send({ id: 'e1', type: 'list_actions' });                               // envelope
  await gw.take((m) => m.id === 'e1');
  await gw.send({ id: 'e2', type: 'invoke', payload: { action: 'deescalation_plan', input: {} } });
  await gw.take((m) => m.id === 'e2');
  // A read that waits, cancelled by the client: its reply is suppressed, its line says so.
  await gw.send({ jsonrpc: '2.0', id: 7, method: 'tools/call',
    params: { name: 'read', arguments: { port_name: 'loop://a', timeout_ms: 20000 } } });
  await sleep(200);
  await gw.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } });
  return 9;
}

async function waitFor(read, pattern, what) {
  const deadline = Date.now() + 15000;
  while (!pattern.test(read())) {
    if (Date.now() > deadline) assert.fail(`no ${what} in:\n${read()}`);
    await sleep(20);
  }
}

test('stdio: an access line for every dialect, in text', async () => {
  const dir = tempDir();
  const gw = new RawGateway(['--data-dir', join(dir, 'data')]);
  try {
    await everyDialect(gw);
    const line = (fields) => new RegExp(
      `^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z INFO access ${fields}$`, 'm');
    const d = 'duration_ms=[\\d.]+';
    const expected = [
      `dialect=mcp transport=stdio principal=stdio method=initialize ${d} outcome=ok`,
      `dialect=mcp transport=stdio principal=stdio method=tools/call tool=open_port ${d} outcome=ok`,
      `dialect=mcp transport=stdio principal=stdio method=ping ${d} outcome=ok`,
      `dialect=mcp transport=stdio principal=stdio method=made/up ${d} outcome=method_not_found code=-32601`,
      `dialect=mcp-2026 transport=stdio principal=stdio method=tools/call tool=list_sessions ${d} outcome=ok`,
      `dialect=loaf transport=stdio principal=stdio method=rpc.handshake ${d} outcome=ok`,
      `dialect=loaf transport=stdio principal=stdio method=system.ping ${d} outcome=ok`,
      `dialect=envelope transport=stdio principal=stdio method=list_actions ${d} outcome=ok`,
      `dialect=envelope transport=stdio principal=stdio method=invoke tool=deescalation_plan ${d} outcome=error`,
      `dialect=mcp transport=stdio principal=stdio method=tools/call tool=read ${d} outcome=cancelled`,
    ];
    for (const fields of expected) await waitFor(() => gw.stderr, line(fields), fields);
    // One line per request, no more.
    assert.equal(gw.stderr.match(/ INFO access /g).length, expected.length, gw.stderr);
    assert.deepEqual(gw.badOutput, []);
  } finally {
    await gw.close();
    removeDir(dir);
  }
});

test('stdio: --log-format json gives one JSON object per line, access fields as keys', async () => {
  const dir = tempDir();
  const gw = new RawGateway(['--data-dir', join(dir, 'data'), '--log-format', 'json']);
  try {
    const sent = await everyDialect(gw);
    await waitFor(() => gw.stderr, /"outcome":"cancelled"/, 'cancelled line');
    await gw.close();
    const lines = gw.stderr.trimEnd().split('\n');
    const parsed = lines.map((text) => {
      try { return JSON.parse(text); } catch { assert.fail(`not JSON: ${text}`); }
    });
    for (const entry of parsed) {
      assert.match(entry.time, RFC3339);
      assert.ok(['debug', 'info', 'warn', 'error'].includes(entry.level), entry.level);
      assert.equal(typeof entry.message, 'string');
    }
    const access = parsed.filter((entry) => entry.message === 'access');
    assert.equal(access.length, sent + 1, 'initialize, then one line per request');
    for (const entry of access) {
      assert.equal(entry.level, 'info');
      assert.equal(entry.transport, 'stdio');
      assert.equal(entry.principal, 'stdio');
      assert.equal(typeof entry.duration_ms, 'number');
      assert.ok(entry.duration_ms >= 0);
      assert.equal(typeof entry.outcome, 'string');
    }
    const byMethod = (dialect, method) => access.find((e) => e.dialect === dialect && e.method === method);
    assert.equal(byMethod('mcp', 'tools/call').tool, 'open_port');
    assert.equal(byMethod('mcp', 'made/up').code, -32601);
    assert.equal(byMethod('mcp-2026', 'tools/call').tool, 'list_sessions');
    assert.equal(byMethod('loaf', 'system.ping').outcome, 'ok');
    assert.equal(byMethod('envelope', 'invoke').tool, 'deescalation_plan');
    assert.ok(!('tool' in byMethod('mcp', 'ping')), 'tool only when there is one');
    assert.deepEqual(gw.badOutput, []);
  } finally {
    await gw.close();
    removeDir(dir);
  }
});

test('HTTP: access lines for both eras, with the principal', async () => {
  const gateway = await startHttpGateway();
  try {
    const { client, transport } = await connectHttp(gateway.url);
    await callOk(client, 'list_sessions', {});
    const stateless = await post(gateway.url, JSON.stringify({ jsonrpc: '2.0', id: 'x', method: 'tools/call',
      params: { name: 'list_sessions', arguments: {}, _meta: META } }), {
      version: '2026-07-28', headers: { 'Mcp-Method': 'tools/call', 'Mcp-Name': 'list_sessions' } });
    assert.equal(stateless.status, 200, stateless.text);
    // A 2026 request whose headers disagree with its body never reaches the dialect.
    const mismatch = await post(gateway.url, JSON.stringify({ jsonrpc: '2.0', id: 'y', method: 'tools/call',
      params: { name: 'list_sessions', arguments: {}, _meta: META } }), {
      version: '2026-07-28', headers: { 'Mcp-Method': 'tools/list', 'Mcp-Name': 'list_sessions' } });
    assert.equal(mismatch.status, 400);
    await transport.terminateSession();
    const d = 'duration_ms=[\\d.]+';
    for (const fields of [
      `dialect=mcp transport=http principal=local method=initialize ${d} outcome=ok`,
      `dialect=mcp transport=http principal=local method=tools/call tool=list_sessions ${d} outcome=ok`,
      `dialect=mcp-2026 transport=http principal=local method=tools/call tool=list_sessions ${d} outcome=ok`,
      `dialect=http transport=http principal=local method=POST ${d} outcome=http_400`,
      `dialect=http transport=http principal=local method=DELETE ${d} outcome=ok`,
    ]) {
      await waitFor(gateway.stderr, new RegExp(`Z INFO access ${fields}\\n`), fields);
    }
  } finally {
    await gateway.stop();
  }
});
