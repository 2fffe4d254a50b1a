// Two stateless labgate HTTP replicas behind one (imaginary) load balancer: both use
// the same standalone labgate-session, labgate-serial and labgate-actions, and the same
// --state-key-file. A 2026-07-28 client may send each request to either replica: a
// session created through A is appended to through B and listed through A; a loop://
// port opened through A is written and read through B (the owner is the principal,
// http:local, on both); a listener on A hears an append made through B; and the
// requestState of an input_required result minted by A is accepted by B (and refused
// by a replica with another key).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { BIN, tempDir, removeDir, startService } from './lib/harness.mjs';
import { startHttpGateway } from './lib/http_gateway.mjs';
import {
  MODERN, connectV2Http, callOk, within, statelessRequest, statelessCallOk,
} from './lib/v2_client.mjs';

let dir;
let services = [];
let replicas = [];
let backendArgs;
const [A, B] = [0, 1];

test.before(async () => {
  dir = tempDir('labgate-replicas-');
  // Pushed one by one, so test.after stops whatever started if a later start fails.
  services.push(await startService(BIN.session, ['--data-dir', join(dir, 'sessions')]));
  services.push(await startService(BIN.serial));
  services.push(await startService(BIN.actions));
  const [session, serial, actions] = services;
  const keyFile = join(dir, 'state.key');
  writeFileSync(keyFile, randomBytes(48).toString('base64'), { mode: 0o600 });
  backendArgs = ['--session-addr', session.address, '--serial-addr', serial.address,
    '--actions-addr', actions.address];
  const args = [...backendArgs, '--state-key-file', keyFile, '--conformance-fixtures'];
  replicas.push(await startHttpGateway(args));
  replicas.push(await startHttpGateway(args));
});

test.after(async () => {
  // Everything is stopped before anything is judged, so a failure cannot leave a
  // process running (and the test runner waiting for it).
  const results = [];
  for (const replica of replicas) results.push([await replica.stop(), replica.stderr()]);
  for (const service of services.reverse()) await service.stop();
  if (dir) removeDir(dir);
  for (const [result, stderr] of results) {
    assert.equal(result.code, 0, `labgate exits 0 on SIGTERM: ${stderr}`);
  }
});

test('v2 clients pinned to 2026-07-28: a session created on A, appended on B, listed on A', async () => {
  const a = await connectV2Http(replicas[A].url, { name: 'replica-a' });
  const b = await connectV2Http(replicas[B].url, { name: 'replica-b' });
  try {
    for (const conn of [a, b]) {
      assert.equal(conn.client.getNegotiatedProtocolVersion(), MODERN);
      assert.equal(conn.transport.sessionId, undefined);
    }
    const { session } = await callOk(a.client, 'create_session', { device_id: 'replicated' });
    const fetched = await callOk(b.client, 'get_session', { session_id: session.id });
    assert.equal(fetched.session.device_id, 'replicated');
    const ack = await callOk(b.client, 'append_message', { session_id: session.id, content: 'via B' });
    assert.equal(ack.message_id, 1);
    const second = await callOk(a.client, 'append_message', { session_id: session.id, content: 'via A' });
    assert.equal(second.message_id, 2);
    const listed = await callOk(a.client, 'list_messages', { session_id: session.id });
    assert.deepEqual(listed.messages.map((m) => [m.message_id, m.content]), [[1, 'via B'], [2, 'via A']]);
    const read = await b.client.readResource({ uri: `labgate://sessions/${session.id}` });
    assert.equal(JSON.parse(read.contents[0].text).export.messages.length, 2);
  } finally {
    await a.close();
    await b.close();
  }
});

test('raw stateless POSTs alternate between replicas (no session, no handshake)', async () => {
  const created = await statelessCallOk(replicas[A].url, 'create_session', { device_id: 'raw-replicated' });
  const id = created.session.id;
  for (let i = 1; i <= 4; i++) {
    const replica = replicas[i % 2];
    const ack = await statelessCallOk(replica.url, 'append_message', { session_id: id, content: `m${i}` });
    assert.equal(ack.message_id, i);
  }
  const reply = await statelessRequest(replicas[A].url, 'tools/call', { name: 'list_messages', arguments: { session_id: id } });
  assert.equal(reply.status, 200);
  assert.equal(reply.headers.get('mcp-session-id'), null, 'no session id is minted');
  assert.equal(reply.response.result.resultType, 'complete');
  assert.deepEqual(reply.response.result.structuredContent.messages.map((m) => m.content), ['m1', 'm2', 'm3', 'm4']);
});

test('a loop:// port opened through A is written and read through B (owner http:local)', async () => {
  const a = await connectV2Http(replicas[A].url, { name: 'port-a' });
  const b = await connectV2Http(replicas[B].url, { name: 'port-b' });
  const port = 'loop://replicas';
  try {
    const opened = await callOk(a.client, 'open_port', { port_name: port, baud_rate: 115200, terminator: '\n' });
    assert.equal(opened.status, 'opened');
    const written = await callOk(b.client, 'write', { port_name: port, data: '*IDN?' });
    assert.equal(written.bytes_written, 6);
    const read = await callOk(b.client, 'read', { port_name: port });
    assert.equal(read.data, '*IDN?');
    // And back the other way.
    await callOk(b.client, 'write', { port_name: port, data: 'SYST:ERR?' });
    assert.equal((await callOk(a.client, 'read', { port_name: port })).data, 'SYST:ERR?');
    const status = await callOk(b.client, 'status', {});
    assert.ok(JSON.stringify(status).includes(port), `status through B lists ${port}: ${JSON.stringify(status)}`);
  } finally {
    await a.client.callTool({ name: 'close', arguments: { port_name: port } }).catch(() => {});
    await a.close();
    await b.close();
  }
});

test('a listener on A hears notifications/resources/updated for an append made through B', async () => {
  const a = await connectV2Http(replicas[A].url, { name: 'listener-a' });
  const b = await connectV2Http(replicas[B].url, { name: 'writer-b' });
  try {
    const { session } = await callOk(b.client, 'create_session', { device_id: 'watched-across' });
    const uri = `labgate://sessions/${session.id}`;
    const updated = new Promise((resolve) => {
      a.client.setNotificationHandler('notifications/resources/updated', (n) => { if (n.params.uri === uri) resolve(n); });
    });
    const subscription = await a.client.listen({ resourceSubscriptions: [uri] });
    await callOk(b.client, 'append_message', { session_id: session.id, content: 'from B' });
    const notification = await within(updated, 10000, `the update for ${uri} on A`);
    assert.equal(notification.params.uri, uri);
    await subscription.close();
  } finally {
    await a.close();
    await b.close();
  }
});

test('requestState minted by A is honoured by B (shared --state-key-file) and refused by a replica with another key', async () => {
  const tool = 'test_input_required_result_elicitation';
  const capabilities = { elicitation: {} };
  const first = await statelessRequest(replicas[A].url, 'tools/call', { name: tool, arguments: {} }, { capabilities });
  assert.equal(first.status, 200);
  const pending = first.response.result;
  assert.equal(pending.resultType, 'input_required');
  const [key] = Object.keys(pending.inputRequests);
  assert.equal(pending.inputRequests[key].method, 'elicitation/create');
  const retry = {
    name: tool, arguments: {},
    inputResponses: { [key]: { action: 'accept', content: { name: 'Grace' } } },
    requestState: pending.requestState,
  };
  const done = await statelessRequest(replicas[B].url, 'tools/call', retry, { capabilities });
  assert.equal(done.status, 200, done.text);
  assert.equal(done.response.result.resultType, 'complete');
  assert.deepEqual(done.response.result.content, [{ type: 'text', text: 'Hello, Grace!' }]);

  // A replica with its own (random) key cannot verify A's requestState.
  const stranger = await startHttpGateway([...backendArgs, '--conformance-fixtures']);
  try {
    const refused = await statelessRequest(stranger.url, 'tools/call', retry, { capabilities });
    assert.equal(refused.response?.result, undefined, `a replica with another key accepted the state: ${refused.text}`);
    assert.equal(refused.response.error.code, -32602);
    assert.equal(refused.response.error.data?.field, 'requestState');
  } finally {
    await stranger.stop();
  }
});
