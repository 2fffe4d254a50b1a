// The lab record through MCP in embedded mode: query in one call, a port bound to a
// session records itself (labgate-serial appends in-process), idempotent appends, and
// what an append error says when its outcome is unknown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIN, startService, connectStdio, callOk, tempDir } from './lib/harness.mjs';
import { callError, eventually, embeddedGateway } from './lib/serial_helpers.mjs';

test('query: one call writes the command and returns the reply, binary-safe', async () => {
  const gateway = await embeddedGateway();
  const { client } = gateway;
  try {
    await callOk(client, 'open_port', { port_name: 'loop://q', baud_rate: 9600, terminator: '\n', timeout_ms: 300 });
    const reply = await callOk(client, 'query', { port_name: 'loop://q', data: 'MEAS:VOLT?' });
    assert.equal(reply.data, 'MEAS:VOLT?', 'the loopback answers with the command');
    assert.equal(reply.bytes_written, 11);
    assert.equal(reply.bytes_read, 10);
    assert.equal(reply.timed_out, false);
    assert.equal(typeof reply.latency_ms, 'number');
    const binary = Buffer.from([0, 1, 0xfe, 0xff, 0x0a]);
    const raw = await callOk(client, 'query', { port_name: 'loop://q', data: binary.toString('base64'), encoding: 'base64' });
    assert.deepEqual(Buffer.from(raw.data, 'base64'), binary, 'binary replies keep the terminator');
    const metrics = await callOk(client, 'metrics', { port_name: 'loop://q' });
    assert.equal(metrics.bytes_written_total, 16);
    assert.equal(metrics.timeout_streak, 0);
  } finally {
    await gateway.close();
  }
});

test('a port opened with session_id records itself: tx, rx and events in order', async () => {
  const gateway = await embeddedGateway();
  const { client } = gateway;
  try {
    const { session } = await callOk(client, 'create_session', { device_id: 'loop' });
    await callOk(client, 'open_port', { port_name: 'loop://rec', baud_rate: 9600, terminator: '\n', timeout_ms: 300, session_id: session.id });
    await callOk(client, 'query', { port_name: 'loop://rec', data: '*IDN?' });
    await callOk(client, 'write', { port_name: 'loop://rec', data: 'VOLT 1' });
    await callOk(client, 'read', { port_name: 'loop://rec' });
    await callOk(client, 'close', { port_name: 'loop://rec' });
    const messages = await eventually(async () => {
      const listed = await callOk(client, 'list_messages', { session_id: session.id });
      return listed.messages.length >= 6 ? listed.messages : null;
    }, 'six records');
    assert.deepEqual(messages.map((m) => [m.message_id, m.direction, m.content]), [
      [1, 'event', messages[0].content],
      [2, 'tx', '*IDN?\n'],
      [3, 'rx', '*IDN?\n'],
      [4, 'tx', 'VOLT 1\n'],
      [5, 'rx', 'VOLT 1\n'],
      [6, 'event', 'closed: closed by client'],
    ]);
    assert.match(messages[0].content, /^opened at 9600 baud/);
    for (const m of messages) {
      assert.equal(m.role, 'device');
      assert.match(m.features, /serial/);
      // When it happened on the wire, beside when it was stored.
      assert.match(m.occurred_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    assert.equal(typeof messages[2].latency_ms, 'number');
    const status = await callOk(client, 'metrics', { port_name: 'loop://rec' });
    assert.equal(status.records_lost, 0);
  } finally {
    await gateway.close();
  }
});

test('append_message with an idempotency_key: a retry returns the original, other content is refused', async () => {
  const gateway = await embeddedGateway();
  const { client } = gateway;
  try {
    const { session } = await callOk(client, 'create_session', { device_id: 'dev' });
    const args = { session_id: session.id, content: 'note', idempotency_key: 'k-1' };
    const first = await callOk(client, 'append_message', args);
    const retry = await callOk(client, 'append_message', args);
    assert.equal(retry.message_id, first.message_id);
    const listed = await callOk(client, 'list_messages', { session_id: session.id });
    assert.equal(listed.messages.length, 1);
    const other = await callError(client, 'append_message', { ...args, content: 'changed' });
    assert.match(other, /FAILED_PRECONDITION.*idempotency_key 'k-1'/);
  } finally {
    await gateway.close();
  }
});

test('an append whose outcome is unknown says so, and that a keyed retry is safe', async () => {
  const service = await startService(BIN.session, ['--data-dir', tempDir()]);
  const address = service.address;
  await service.stop('SIGKILL');
  const { client } = await connectStdio(['--session-addr', address, '--call-timeout-ms', '2000']);
  try {
    const keyed = await callError(client, 'append_message', { session_id: 's', content: 'x', idempotency_key: 'k' });
    assert.match(keyed, /UNAVAILABLE|DEADLINE_EXCEEDED/);
    assert.match(keyed, /outcome is unknown/);
    assert.match(keyed, /same idempotency_key is safe/);
    const bare = await callError(client, 'append_message', { session_id: 's', content: 'x' });
    assert.match(bare, /outcome is unknown.*may store it twice/);
  } finally {
    await client.close();
  }
});
