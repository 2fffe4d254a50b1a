// The official MCP SDK client drives every session tool through labgate over stdio,
// in embedded mode and against a separate labgate-session process, and checks that
// every acknowledged message survives a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIN, tempDir, removeDir, startService, connectStdio, callOk } from './lib/harness.mjs';

const SESSION_TOOLS = ['create_session', 'get_session', 'list_sessions', 'close_session',
  'append_message', 'list_messages', 'filter_messages', 'export_session', 'feature_index',
  'session_stats'];
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function exerciseEverySessionTool(client) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const name of SESSION_TOOLS) assert.ok(names.includes(name), `tools/list lacks ${name}`);
  const append = tools.find((t) => t.name === 'append_message');
  assert.deepEqual(append.inputSchema.required, ['session_id', 'content']);
  assert.equal(append.inputSchema.properties.role.default, 'tool');
  assert.ok(append.outputSchema, 'append_message has an outputSchema');

  const { session } = await callOk(client, 'create_session', { device_id: 'psu-1', port_name: 'loop://' });
  assert.match(session.id, UUID);
  assert.equal(session.device_id, 'psu-1');
  assert.equal(session.port_name, 'loop://');
  assert.equal(session.closed, false);
  assert.match(session.created_at, RFC3339);

  const sent = [
    { content: '*IDN?', role: 'user', direction: 'tx', features: 'scpi, idn' },
    { content: 'ACME,PSU-3000,42,1.0', role: 'device', direction: 'rx', features: 'scpi idn', latency_ms: 12 },
    { content: 'VOLT 5', role: 'user', direction: 'tx', features: 'scpi2' },
    { content: 'note' },
  ];
  const acknowledged = [];
  for (const [i, message] of sent.entries()) {
    const ack = await callOk(client, 'append_message', { session_id: session.id, ...message });
    assert.equal(ack.message_id, i + 1, 'message_id rises by exactly 1');
    assert.equal(ack.session_id, session.id);
    assert.match(ack.created_at, RFC3339);
    acknowledged.push(ack);
  }
  assert.equal(acknowledged[3].role, 'tool', 'role defaults to tool');
  assert.equal(acknowledged[1].latency_ms, 12);

  const all = await callOk(client, 'list_messages', { session_id: session.id });
  assert.equal(all.count, 4);
  assert.deepEqual(all.messages.map((m) => m.message_id), [1, 2, 3, 4]);
  assert.equal(all.messages[0].content, '*IDN?');
  assert.equal(all.next_cursor, undefined);

  const page1 = await callOk(client, 'list_messages', { session_id: session.id, limit: 2 });
  assert.deepEqual(page1.messages.map((m) => m.message_id), [1, 2]);
  assert.equal(page1.next_cursor, 2);
  const page2 = await callOk(client, 'list_messages',
    { session_id: session.id, limit: 2, after_message_id: page1.next_cursor });
  assert.deepEqual(page2.messages.map((m) => m.message_id), [3, 4]);

  const scpi = await callOk(client, 'filter_messages', { session_id: session.id, feature: 'scpi' });
  assert.deepEqual(scpi.messages.map((m) => m.message_id), [1, 2], 'scpi must not match scpi2');
  const rx = await callOk(client, 'filter_messages', { session_id: session.id, direction: 'rx' });
  assert.deepEqual(rx.messages.map((m) => m.message_id), [2]);
  const users = await callOk(client, 'filter_messages', { session_id: session.id, role: 'user', feature: 'scpi2' });
  assert.deepEqual(users.messages.map((m) => m.message_id), [3]);

  const index = await callOk(client, 'feature_index', { session_id: session.id });
  assert.deepEqual(index.features, { scpi: 2, idn: 2, scpi2: 1 });

  const stats = await callOk(client, 'session_stats', { session_id: session.id });
  assert.equal(stats.message_count, 4);
  assert.equal(stats.last_message_id, 4);
  assert.equal(typeof stats.messages_per_min, 'number');

  const exported = await callOk(client, 'export_session', { session_id: session.id });
  assert.equal(exported.export.session.id, session.id);
  assert.equal(exported.export.messages.length, 4);

  const fetched = await callOk(client, 'get_session', { session_id: session.id });
  assert.equal(fetched.session.device_id, 'psu-1');

  const listed = await callOk(client, 'list_sessions', {});
  assert.ok(listed.sessions.some((s) => s.id === session.id));

  // Errors come back as tool results a person can act on.
  const missing = await client.callTool({ name: 'get_session', arguments: { session_id: 'nope' } });
  assert.equal(missing.isError, true);
  assert.match(missing.content[0].text, /NOT_FOUND/);
  const empty = await client.callTool({ name: 'append_message', arguments: { session_id: session.id, content: '' } });
  assert.equal(empty.isError, true);
  assert.match(empty.content[0].text, /INVALID_ARGUMENT.*content/);
  const unknownField = await client.callTool({ name: 'append_message', arguments: { session_id: session.id, content: 'x', colour: 'red' } });
  assert.equal(unknownField.isError, true);
  assert.match(unknownField.content[0].text, /unknown field 'colour'/);
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /-32602|Unknown tool/);

  // A second session to close, so the first stays open for the restart check.
  const { session: other } = await callOk(client, 'create_session', { device_id: 'meter-2' });
  const closed = await callOk(client, 'close_session', { session_id: other.id });
  assert.equal(closed.session.closed, true);
  const late = await client.callTool({ name: 'append_message', arguments: { session_id: other.id, content: 'late' } });
  assert.equal(late.isError, true);
  assert.match(late.content[0].text, /FAILED_PRECONDITION/);
  const openOnly = await callOk(client, 'list_sessions', {});
  assert.ok(!openOnly.sessions.some((s) => s.id === other.id), 'closed sessions hidden by default');
  const withClosed = await callOk(client, 'list_sessions', { include_closed: true });
  assert.ok(withClosed.sessions.some((s) => s.id === other.id));

  return { sessionId: session.id, acknowledged };
}

async function assertKeptAfterRestart(client, sessionId, acknowledged) {
  const after = await callOk(client, 'list_messages', { session_id: sessionId });
  assert.deepEqual(after.messages.map((m) => [m.message_id, m.created_at]),
    acknowledged.map((a) => [a.message_id, a.created_at]));
  const next = await callOk(client, 'append_message', { session_id: sessionId, content: 'after restart' });
  assert.equal(next.message_id, acknowledged.length + 1);
}

test('embedded labgate serves every session tool and keeps data across a restart', async () => {
  const dataDir = tempDir();
  try {
    const first = await connectStdio(['--data-dir', dataDir]);
    const { sessionId, acknowledged } = await exerciseEverySessionTool(first.client);
    await first.client.close();

    const second = await connectStdio(['--data-dir', dataDir]);
    await assertKeptAfterRestart(second.client, sessionId, acknowledged);
    await second.client.close();
  } finally {
    removeDir(dataDir);
  }
});

test('labgate against a separate labgate-session process', async () => {
  const dataDir = tempDir();
  let service = await startService(BIN.session, ['--data-dir', dataDir]);
  try {
    const first = await connectStdio(['--session-addr', service.address]);
    const { sessionId, acknowledged } = await exerciseEverySessionTool(first.client);
    await first.client.close();

    const stopped = await service.stop('SIGTERM');
    assert.equal(stopped.code, 0, 'labgate-session drains and exits 0 on SIGTERM');
    service = await startService(BIN.session, ['--data-dir', dataDir]);

    const second = await connectStdio(['--session-addr', service.address]);
    await assertKeptAfterRestart(second.client, sessionId, acknowledged);
    await second.client.close();
  } finally {
    await service.stop();
    removeDir(dataDir);
  }
});

test('a dead session backend gives a clear error and labgate keeps serving', async () => {
  const service = await startService(BIN.session, ['--data-dir', tempDir()]);
  const address = service.address;
  await service.stop('SIGKILL');
  const { client } = await connectStdio(['--session-addr', address, '--call-timeout-ms', '3000']);
  try {
    const result = await client.callTool({ name: 'create_session', arguments: { device_id: 'x' } });
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /UNAVAILABLE|DEADLINE_EXCEEDED/);
    const { tools } = await client.listTools();
    assert.ok(tools.length >= SESSION_TOOLS.length, 'still serving after the failure');
  } finally {
    await client.close();
  }
});
