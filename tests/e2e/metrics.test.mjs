// The gateway's Prometheus endpoint, scraped from outside: the exposition parses strictly,
// counters move after real tool calls, the open-ports gauge follows opens and closes of
// loop:// ports, bearer tokens guard it, the operator listener (--metrics-listen) serves it
// without MCP, and a stdio gateway can be scraped while its stdout stays protocol-only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { callOk, tempDir, removeDir } from './lib/harness.mjs';
import { startHttpGateway, connectHttp, post, rawInitialize } from './lib/http_gateway.mjs';
import { RawGateway } from './lib/raw_gateway.mjs';
import { scrape, scrapeUntil, waitForPortFile } from './lib/metrics.mjs';

// Every family the issue names; the embedded services' families are in the gateway's scrape.
const FAMILIES = [
  'labgate_requests_total', 'labgate_request_duration_seconds', 'labgate_requests_in_flight',
  'labgate_tool_calls_total', 'labgate_tool_call_duration_seconds',
  'labgate_principals', 'labgate_mcp_sessions', 'labgate_http_connections',
  'labgate_backend_up', 'labgate_backend_reconnects_total',
  'labgate_serial_open_ports', 'labgate_serial_bytes_total', 'labgate_serial_read_timeouts_total',
  'labgate_serial_auto_closes_total', 'labgate_serial_devices_lost_total',
  'labgate_serial_policy_refusals_total', 'labgate_serial_policy_confirmations_total',
  'labgate_serial_recording_queue_depth', 'labgate_serial_recording_lost_total',
  'labgate_session_appends_total', 'labgate_session_commit_batch_size',
  'labgate_session_fsync_duration_seconds', 'labgate_session_database_bytes',
  'labgate_action_invocations_total',
];

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const open = { baud_rate: 9600, timeout_ms: 200 };

test('an HTTP gateway counts real tool calls, and its open-ports gauge follows loop:// ports', async () => {
  const gateway = await startHttpGateway();
  const metricsUrl = `http://127.0.0.1:${gateway.port}/metrics`;
  try {
    const first = await scrape(metricsUrl);
    for (const family of FAMILIES) assert.ok(first.families.has(family), `${family} is listed`);
    assert.equal(first.families.get('labgate_requests_total').type, 'counter');
    assert.equal(first.families.get('labgate_serial_open_ports').type, 'gauge');
    assert.equal(first.families.get('labgate_request_duration_seconds').type, 'histogram');
    assert.equal(first.value('labgate_serial_open_ports'), 0);

    const { client, transport } = await connectHttp(gateway.url);
    await callOk(client, 'open_port', { port_name: 'loop://m1', ...open });
    let m = await scrape(metricsUrl);
    assert.equal(m.value('labgate_serial_open_ports'), 1);
    assert.equal(m.value('labgate_tool_calls_total', { tool: 'open_port', outcome: 'ok' }), 1);
    assert.equal(m.value('labgate_tool_call_duration_seconds_count', { tool: 'open_port' }), 1);

    await callOk(client, 'open_port', { port_name: 'loop://m2', ...open });
    assert.equal((await scrape(metricsUrl)).value('labgate_serial_open_ports'), 2);

    await callOk(client, 'write', { port_name: 'loop://m1', data: 'hi' });
    const read = await callOk(client, 'read', { port_name: 'loop://m2' });  // nothing there
    assert.equal(read.timed_out, true);
    // A tool that fails reports isError: counted as tool_error, not ok.
    const refused = await client.callTool({ name: 'open_port', arguments: { port_name: 'loop://m3' } });
    assert.equal(refused.isError, true);
    // A request is counted as its trace is let go, just after its answer is sent.
    m = await scrapeUntil(metricsUrl, (e) => e.value('labgate_requests_total',
      { dialect: 'mcp', transport: 'http', method: 'tools/call', outcome: 'tool_error' }) === 1);
    assert.equal(m.value('labgate_serial_bytes_total', { direction: 'tx' }), 2, 'hi (no terminator set)');
    assert.equal(m.value('labgate_serial_read_timeouts_total'), 1);
    assert.equal(m.value('labgate_tool_calls_total', { tool: 'open_port', outcome: 'tool_error' }), 1);

    await callOk(client, 'close', { port_name: 'loop://m1' });
    assert.equal((await scrape(metricsUrl)).value('labgate_serial_open_ports'), 1);
    await callOk(client, 'close', { port_name: 'loop://m2' });
    assert.equal((await scrape(metricsUrl)).value('labgate_serial_open_ports'), 0);

    // The session store's figures move with a durable append.
    const { session } = await callOk(client, 'create_session', { device_id: 'metrics' });
    await callOk(client, 'append_message', { session_id: session.id, content: 'counted' });
    m = await scrape(metricsUrl);
    assert.equal(m.value('labgate_session_appends_total'), 1);
    assert.ok(m.value('labgate_session_commit_batch_size_count') >= 2, 'create and append committed');
    assert.ok(m.value('labgate_session_fsync_duration_seconds_count') >= 2);
    assert.ok(m.value('labgate_session_database_bytes') > 0);

    // Made-up names never become label values: an unknown tool, an unknown method.
    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((e) => e);
    assert.equal(unknown.code, -32602);
    const sessionId = await rawInitialize(gateway.url);
    const bogus = await post(gateway.url, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'made/up' }),
      { session: sessionId, version: '2025-11-25' });
    assert.equal(bogus.json.error.code, -32601);
    m = await scrapeUntil(metricsUrl, (e) => e.value('labgate_requests_total',
      { dialect: 'mcp', transport: 'http', method: 'other', outcome: 'method_not_found' }) === 1
      && e.value('labgate_requests_in_flight', { dialect: 'mcp' }) === 0);
    assert.equal(m.value('labgate_requests_total',
      { dialect: 'mcp', transport: 'http', method: 'tools/call', outcome: 'invalid_params' }), 1);
    for (const key of m.samples.keys()) {
      assert.ok(!key.includes('no_such_tool') && !key.includes('made/up'), key);
    }
    // One loopback principal, its two stateful sessions, no request left in flight.
    assert.equal(m.value('labgate_principals', { transport: 'http' }), 1);
    assert.equal(m.value('labgate_mcp_sessions', { transport: 'http' }), 2);
    assert.ok(m.value('labgate_http_connections') >= 1);
    // The embedded backends answer their health checks.
    await scrapeUntil(metricsUrl, (e) => ['session', 'serial', 'actions'].every(
      (service) => e.value('labgate_backend_up', { service, bench: '' }) === 1));

    await transport.terminateSession();
    await scrapeUntil(metricsUrl, (e) => e.value('labgate_mcp_sessions', { transport: 'http' }) === 1);
  } finally {
    await gateway.stop();
  }
});

test('with --auth-token-file, /metrics needs a bearer token', async () => {
  const dir = tempDir();
  const tokens = join(dir, 'tokens');
  writeFileSync(tokens, 'prometheus scrape-secret\n');
  const gateway = await startHttpGateway(['--auth-token-file', tokens]);
  const metricsUrl = `http://127.0.0.1:${gateway.port}/metrics`;
  try {
    const anonymous = await fetch(metricsUrl);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer realm="labgate"');
    const wrong = await fetch(metricsUrl, { headers: { Authorization: 'Bearer nope' } });
    assert.equal(wrong.status, 401);
    const m = await scrape(metricsUrl, { Authorization: 'Bearer scrape-secret' });
    assert.ok(m.families.has('labgate_requests_total'));
    // /healthz stays open, as for probes.
    assert.equal((await fetch(`http://127.0.0.1:${gateway.port}/healthz`)).status, 200);
    // The refusals are logged as access lines.
    assert.match(gateway.stderr(),
      /INFO access dialect=http transport=http principal=- method=GET duration_ms=[\d.]+ outcome=http_401\n/);
  } finally {
    await gateway.stop();
    removeDir(dir);
  }
});

test('--metrics-listen serves the operator routes without MCP', async () => {
  const dir = tempDir();
  const portFile = join(dir, 'metrics-port');
  const gateway = await startHttpGateway(['--metrics-listen', '127.0.0.1:0', '--metrics-port-file', portFile]);
  try {
    const port = await waitForPortFile(portFile, { child: gateway.child });
    assert.notEqual(port, gateway.port);
    const m = await scrape(`http://127.0.0.1:${port}/metrics`);
    assert.ok(m.families.has('labgate_serial_open_ports'));
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal((await ready.json()).status, 'ready');
    const mcp = await post(`http://127.0.0.1:${port}/mcp`, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    assert.equal(mcp.status, 404);
    // The MCP listener still has its own /metrics too.
    assert.ok((await scrape(`http://127.0.0.1:${gateway.port}/metrics`)).families.has('labgate_principals'));
  } finally {
    await gateway.stop();
    removeDir(dir);
  }
});

test('a stdio gateway with --metrics-listen is scraped and browsed while stdout carries only protocol messages', async () => {
  const dir = tempDir();
  const portFile = join(dir, 'metrics-port');
  const gw = new RawGateway(['--data-dir', join(dir, 'data'), '--log-level', 'debug',
    '--metrics-listen', '127.0.0.1:0', '--metrics-port-file', portFile]);
  try {
    const port = await waitForPortFile(portFile, { child: gw.child });
    const metricsUrl = `http://127.0.0.1:${port}/metrics`;
    await gw.initialize();
    await gw.request(1, 'tools/call', { name: 'open_port', arguments: { port_name: 'loop://s', ...open } });
    await gw.request(2, 'ping');
    await gw.request(3, 'tools/list', { _meta: META });  // the stateless era
    await gw.request(4, 'rpc.handshake', {});             // loaf
    await gw.send({ id: 'e', type: 'list_actions' });     // the v0.1 envelope
    await gw.take((m) => m.id === 'e');
    const answered = [['mcp', 'initialize'], ['mcp', 'tools/call'], ['mcp', 'ping'],
      ['mcp-2026', 'tools/list'], ['loaf', 'rpc.handshake'], ['envelope', 'list_actions']];
    const m = await scrapeUntil(metricsUrl, (e) => answered.every(([dialect, method]) =>
      e.value('labgate_requests_total', { dialect, transport: 'stdio', method, outcome: 'ok' }) === 1));
    assert.equal(m.value('labgate_serial_open_ports'), 1);
    assert.equal(m.value('labgate_principals', { transport: 'stdio' }), 1);
    assert.equal(m.value('labgate_mcp_sessions', { transport: 'stdio' }), 1);
    // The same listener serves the console, so the embedded gateway can be browsed.
    const page = await fetch(`http://127.0.0.1:${port}/console`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type'), /text\/html/);
    assert.match(await page.text(), /labgate/);
    const ports = await (await fetch(`http://127.0.0.1:${port}/console/api/ports`)).json();
    const opened = ports.ports.find((p) => p.name === 'loop://s');
    assert.ok(opened, JSON.stringify(ports));
    assert.equal(opened.state, 'open');
    assert.match(opened.owner, /^stdio/);
    await gw.request(5, 'tools/call', { name: 'close', arguments: { port_name: 'loop://s' } });
    assert.equal((await scrape(metricsUrl)).value('labgate_serial_open_ports'), 0);
    // Even at debug level, with access lines and a scrape going on, stdout held nothing
    // but protocol messages.
    assert.deepEqual(gw.badOutput, []);
    assert.ok(gw.frames.every((f) => f.message.jsonrpc === '2.0' || 'ok' in f.message),
      JSON.stringify(gw.frames.map((f) => f.message)));
    assert.match(gw.stderr, /INFO access dialect=mcp transport=stdio principal=stdio method=tools\/call tool=open_port /);
  } finally {
    await gw.close();
    removeDir(dir);
  }
});
