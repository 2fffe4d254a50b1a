// The official MCP SDK client over Streamable HTTP: the session tools, two clients at
// once, session termination, and a resource subscription that one client receives
// when another appends a message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { callOk } from './lib/harness.mjs';
import { startHttpGateway, connectHttp, post } from './lib/http_gateway.mjs';

let gateway;
test.before(async () => { gateway = await startHttpGateway(); });
test.after(async () => {
  const result = await gateway.stop();
  assert.equal(result.code, 0, `labgate exits 0 on SIGTERM: ${gateway.stderr()}`);
});

test('prints where it listens and serves no stdio', () => {
  assert.match(gateway.stderr(), new RegExp(`labgate listening on http://127\\.0\\.0\\.1:${gateway.port}/mcp`));
});

test('the SDK client uses the session tools over HTTP', async () => {
  const { client, transport } = await connectHttp(gateway.url);
  assert.match(transport.sessionId, /^[0-9a-f]{64}$/);
  assert.equal(client.getServerVersion().name, 'labgate');
  const { tools } = await client.listTools();
  for (const name of ['create_session', 'append_message', 'list_messages', 'get_session']) {
    assert.ok(tools.some((t) => t.name === name), `tools/list lacks ${name}`);
  }
  const { session } = await callOk(client, 'create_session', { device_id: 'http-psu' });
  for (let i = 1; i <= 3; i++) {
    const ack = await callOk(client, 'append_message', { session_id: session.id, content: `m${i}` });
    assert.equal(ack.message_id, i);
  }
  const listed = await callOk(client, 'list_messages', { session_id: session.id });
  assert.deepEqual(listed.messages.map((m) => m.content), ['m1', 'm2', 'm3']);
  const bad = await client.callTool({ name: 'append_message', arguments: { session_id: 5, content: 'x' } });
  assert.equal(bad.isError, true);
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /-32602|no_such_tool|Unknown tool/i);
  assert.deepEqual(await client.ping(), {});
  await transport.terminateSession();
  const after = await post(gateway.url, '{"jsonrpc":"2.0","id":1,"method":"ping"}', { session: transport.sessionId ?? 'x' });
  assert.equal(after.status, 404);
  await client.close();
});

test('two SDK clients at once each get their own session and answers', async () => {
  const a = await connectHttp(gateway.url, { name: 'a' });
  const b = await connectHttp(gateway.url, { name: 'b' });
  assert.notEqual(a.transport.sessionId, b.transport.sessionId);
  const [sa, sb] = await Promise.all([
    callOk(a.client, 'create_session', { device_id: 'dev-a' }),
    callOk(b.client, 'create_session', { device_id: 'dev-b' }),
  ]);
  const appends = [];
  for (let i = 0; i < 20; i++) {
    appends.push(callOk(a.client, 'append_message', { session_id: sa.session.id, content: `a${i}` }));
    appends.push(callOk(b.client, 'append_message', { session_id: sb.session.id, content: `b${i}` }));
  }
  const acks = await Promise.all(appends);
  assert.equal(acks.length, 40);
  const la = await callOk(a.client, 'list_messages', { session_id: sa.session.id, limit: 100 });
  const lb = await callOk(b.client, 'list_messages', { session_id: sb.session.id, limit: 100 });
  assert.equal(la.count, 20);
  assert.equal(lb.count, 20);
  assert.ok(la.messages.every((m) => m.content.startsWith('a')));
  assert.ok(lb.messages.every((m) => m.content.startsWith('b')));
  await a.client.close();
  await b.client.close();
});

test('a subscriber hears notifications/resources/updated when another client appends', async () => {
  const watcher = await connectHttp(gateway.url, { name: 'watcher' });
  const writer = await connectHttp(gateway.url, { name: 'writer' });
  const { session } = await callOk(writer.client, 'create_session', { device_id: 'watched' });
  const uri = `labgate://sessions/${session.id}`;
  const updated = new Promise((resolve) => {
    watcher.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri));
  });
  await watcher.client.subscribeResource({ uri });
  await callOk(writer.client, 'append_message', { session_id: session.id, content: 'hello watcher' });
  const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('no update within 10 s')), 10000));
  assert.equal(await Promise.race([updated, timeout]), uri);
  const read = await watcher.client.readResource({ uri });
  assert.match(read.contents[0].text, /hello watcher/);
  await watcher.client.close();
  await writer.client.close();
});
