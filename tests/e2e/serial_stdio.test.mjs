// The official MCP SDK client drives labgate's serial tools over stdio on loop://
// ports (embedded mode), ownership between two MCP connections sharing one standalone
// labgate-serial, and notifications/cancelled or the call deadline during a slow read (in
// both modes under LABGATE_E2E_SPLIT, as are wrong argument types). The same tools on
// real pty devices through libserialport are in serial_pty.pty.mjs (run in the harness).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { BIN, gatewayArgs, startService, connectStdio, callOk, tempDir, removeDir } from './lib/harness.mjs';
import { RawGateway } from './lib/raw_gateway.mjs';
import { callError, eventually, embeddedGateway } from './lib/serial_helpers.mjs';

const SERIAL_TOOLS = ['list_ports', 'list_ports_extended', 'describe_port', 'open_port',
  'reconfigure_port', 'write', 'read', 'close', 'status', 'metrics'];

test('tools/list carries the seed serial tools with their schemas', async () => {
  const gateway = await embeddedGateway();
  try {
    const { tools } = await gateway.client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of SERIAL_TOOLS) assert.ok(names.includes(name), `tools/list lacks ${name}`);
    const open = tools.find((t) => t.name === 'open_port');
    // port_name and baud_rate are required unless an instrument gives them, so the schema
    // cannot require them; the service refuses a call without them (below).
    assert.deepEqual(open.inputSchema.required ?? [], []);
    assert.match(open.inputSchema.properties.port_name.description, /required unless instrument/);
    assert.equal(open.inputSchema.properties.instrument.type, 'string');
    assert.equal(open.inputSchema.properties.baud_rate.maximum, 4000000);
    assert.ok(open.outputSchema, 'open_port has an outputSchema');
    const read = tools.find((t) => t.name === 'read');
    assert.equal(read.inputSchema.properties.max_bytes.default, 1024);
    assert.equal(read.annotations?.readOnlyHint ?? false, false);
    assert.equal(tools.find((t) => t.name === 'status').annotations.readOnlyHint, true);
    assert.equal(tools.find((t) => t.name === 'close').annotations.destructiveHint, true);
    // Without an instrument, port_name and baud_rate are still required, as the seed's were.
    assert.match(await callError(gateway.client, 'open_port', { baud_rate: 9600 }),
      /port_name is required/);
    assert.match(await callError(gateway.client, 'open_port', { port_name: 'loop://x' }),
      /baud_rate is required/);
    assert.match(await callError(gateway.client, 'open_port', { instrument: 'psu-2' }),
      /no instrument named 'psu-2'; none are configured/);
  } finally {
    await gateway.close();
  }
});

test('loop://: seed spellings, text with terminator stripping, binary with NUL bytes', async () => {
  const gateway = await embeddedGateway();
  const { client } = gateway;
  try {
    const opened = await callOk(client, 'open_port', {
      port_name: 'loop://text', baud_rate: 115200, data_bits: 'eight', stop_bits: 1,
      flow_control: 'rtscts', parity: 'none', terminator: '\n', timeout_ms: 500,
    });
    assert.equal(opened.status, 'opened');
    assert.equal(opened.port_name, 'loop://text');
    assert.equal(opened.settings.baud_rate, 115200);
    assert.equal(opened.settings.data_bits, 'eight');
    assert.equal(opened.settings.stop_bits, 'one');
    assert.equal(opened.settings.flow_control, 'hardware');
    assert.equal(opened.settings.terminator, '\n');

    const numeric = await callOk(client, 'open_port', {
      port_name: 'loop://numeric', baud_rate: 9600, data_bits: 8, stop_bits: 2, flow_control: 'xonxoff', parity: 'E',
    });
    assert.equal(numeric.settings.data_bits, 'eight');
    assert.equal(numeric.settings.stop_bits, 'two');
    assert.equal(numeric.settings.flow_control, 'software');
    assert.equal(numeric.settings.parity, 'even');
    assert.equal(numeric.settings.timeout_ms, 1000, 'timeout_ms defaults to 1000');

    const listed = await callOk(client, 'list_ports', {});
    const listedNames = listed.ports.map((p) => p.port_name);
    assert.ok(listedNames.includes('loop://text') && listedNames.includes('loop://numeric'),
      `open loopbacks are listed: ${listedNames}`);

    // Text: the terminator is appended when missing, and stripped on read.
    const w1 = await callOk(client, 'write', { port_name: 'loop://text', data: '*IDN?' });
    assert.equal(w1.bytes_written, 6);
    assert.equal(w1.bytes_written_total, 6);
    const w2 = await callOk(client, 'write', { port_name: 'loop://text', data: 'MEAS:VOLT?\n' });
    assert.equal(w2.bytes_written, 11);
    assert.equal(w2.bytes_written_total, 17);
    const r1 = await callOk(client, 'read', { port_name: 'loop://text' });
    assert.equal(r1.data, '*IDN?');
    assert.equal(r1.bytes_read_total, 6);
    const r2 = await callOk(client, 'read', { port_name: 'loop://text' });
    assert.equal(r2.data, 'MEAS:VOLT?');
    assert.equal(r2.bytes_read_total, 17);
    assert.notEqual(r2.timed_out, true);

    // Binary: hex and base64, NUL bytes included, both ways.
    const binary = Buffer.from([0x00, 0x01, 0xff, 0x00, 0x0a, 0x7f, 0x00]);
    const wh = await callOk(client, 'write', { port_name: 'loop://text', data: binary.toString('hex'), encoding: 'hex' });
    assert.equal(wh.bytes_written, binary.length, 'binary writes get no terminator');
    const rh = await callOk(client, 'read', { port_name: 'loop://text', encoding: 'hex', max_bytes: 64 });
    assert.equal(rh.encoding, 'hex');
    assert.equal(rh.data, binary.toString('hex'));
    assert.equal(rh.bytes_read, binary.length);

    const wb = await callOk(client, 'write', { port_name: 'loop://text', data: binary.toString('base64'), encoding: 'base64' });
    assert.equal(wb.bytes_written, binary.length);
    const rb = await callOk(client, 'read', { port_name: 'loop://text', encoding: 'base64' });
    assert.equal(rb.encoding, 'base64');
    assert.deepEqual(Buffer.from(rb.data, 'base64'), binary);

    // max_bytes caps a read; the rest stays for the next one.
    await callOk(client, 'write', { port_name: 'loop://numeric', data: '00112233445566', encoding: 'hex' });
    const part = await callOk(client, 'read', { port_name: 'loop://numeric', encoding: 'hex', max_bytes: 3 });
    assert.equal(part.data, '001122');
    const rest = await callOk(client, 'read', { port_name: 'loop://numeric', encoding: 'hex', max_bytes: 16 });
    assert.equal(rest.data, '33445566');

    // Text reads of bytes that are not UTF-8 come back as base64.
    await callOk(client, 'write', { port_name: 'loop://numeric', data: 'fffe00', encoding: 'hex' });
    const notUtf8 = await callOk(client, 'read', { port_name: 'loop://numeric' });
    assert.equal(notUtf8.encoding, 'base64');
    assert.deepEqual(Buffer.from(notUtf8.data, 'base64'), Buffer.from([0xff, 0xfe, 0x00]));
  } finally {
    await gateway.close();
  }
});

test('loop://: a timeout returns 0 bytes and counts the streak; a good read resets it', async () => {
  const gateway = await embeddedGateway();
  const { client } = gateway;
  try {
    await callOk(client, 'open_port', { port_name: 'loop://t', baud_rate: 9600, terminator: '\r\n', timeout_ms: 5000 });
    for (const streak of [1, 2]) {
      const read = await callOk(client, 'read', { port_name: 'loop://t', timeout_ms: 50 });
      assert.equal(read.bytes_read, 0);
      assert.equal(read.data, '');
      assert.equal(read.timed_out, true);
      const metrics = await callOk(client, 'metrics', { port_name: 'loop://t' });
      assert.equal(metrics.timeout_streak, streak);
    }
    await callOk(client, 'write', { port_name: 'loop://t', data: 'OK' });
    const read = await callOk(client, 'read', { port_name: 'loop://t', timeout_ms: 50 });
    assert.equal(read.data, 'OK');
    const metrics = await callOk(client, 'metrics', { port_name: 'loop://t' });
    assert.equal(metrics.timeout_streak, 0);
  } finally {
    await gateway.close();
  }
});

test('loop://: idle auto-close answers the seed event and counts across reopenings', async () => {
  const gateway = await embeddedGateway();
  const { client } = gateway;
  try {
    for (const count of [1, 2]) {
      await callOk(client, 'open_port', { port_name: 'loop://idle', baud_rate: 9600, idle_disconnect_ms: 150 });
      await sleep(400);
      const read = await callOk(client, 'read', { port_name: 'loop://idle', timeout_ms: 50 });
      assert.equal(read.event, 'auto_close');
      assert.equal(read.reason, 'idle_timeout');
      assert.equal(read.idle_ms, 150);
      assert.equal(read.idle_close_count, count);
      const status = await callOk(client, 'status', { port_name: 'loop://idle' });
      assert.equal(status.status, 'closed');
      const metrics = await callOk(client, 'metrics', { port_name: 'loop://idle' });
      assert.equal(metrics.idle_close_count, count);
    }
    // I/O keeps a port alive: a write just before the read counts as activity.
    await callOk(client, 'open_port', { port_name: 'loop://busy', baud_rate: 9600, idle_disconnect_ms: 60000, terminator: '\n' });
    await callOk(client, 'write', { port_name: 'loop://busy', data: 'x' });
    const kept = await callOk(client, 'read', { port_name: 'loop://busy' });
    assert.equal(kept.event, undefined);
    assert.equal(kept.data, 'x');
  } finally {
    await gateway.close();
  }
});

test('loop://: status, metrics, reconfigure resetting metrics, idempotent close', async () => {
  const gateway = await embeddedGateway();
  const { client } = gateway;
  try {
    await callOk(client, 'open_port', { port_name: 'loop://m', baud_rate: 19200, terminator: '\n' });
    await callOk(client, 'write', { port_name: 'loop://m', data: 'hello' });
    await callOk(client, 'read', { port_name: 'loop://m' });

    const status = await callOk(client, 'status', { port_name: 'loop://m' });
    assert.equal(status.status, 'open');
    assert.equal(status.port_name, 'loop://m');
    assert.equal(status.settings.baud_rate, 19200);
    assert.equal(status.owned_by_caller, true);
    assert.deepEqual(status.open_ports, ['loop://m']);

    const metrics = await callOk(client, 'metrics', { port_name: 'loop://m' });
    assert.equal(metrics.state, 'open');
    assert.equal(metrics.port_name, 'loop://m');
    assert.equal(metrics.bytes_written_total, 6);
    assert.equal(metrics.bytes_read_total, 6);
    assert.equal(metrics.idle_close_count, 0);
    assert.equal(metrics.timeout_streak, 0);
    for (const field of ['state', 'bytes_read_total', 'bytes_written_total', 'idle_close_count',
      'open_duration_ms', 'last_activity_ms', 'timeout_streak']) {
      assert.ok(field in metrics, `metrics carries the seed's ${field}`);
    }
    assert.ok(Number.isInteger(metrics.open_duration_ms) && metrics.open_duration_ms >= 0);
    assert.ok(Number.isInteger(metrics.last_activity_ms) && metrics.last_activity_ms >= 0);

    const described = await callOk(client, 'describe_port', { port_name: 'loop://m' });
    assert.equal(described.state, 'open');
    assert.equal(described.port.transport, 'loopback');

    const reconfigured = await callOk(client, 'reconfigure_port', { port_name: 'loop://m', baud_rate: 57600, data_bits: '7', parity: 'odd' });
    assert.equal(reconfigured.status, 'reconfigured');
    assert.equal(reconfigured.settings.baud_rate, 57600);
    assert.equal(reconfigured.settings.data_bits, 'seven');
    assert.equal(reconfigured.settings.parity, 'odd');
    assert.equal(reconfigured.settings.terminator, '\n', 'fields left out keep their value');
    const reset = await callOk(client, 'metrics', { port_name: 'loop://m' });
    assert.equal(reset.bytes_written_total, 0);
    assert.equal(reset.bytes_read_total, 0);
    assert.equal(reset.state, 'open', 'reconfigure does not close the port');

    assert.equal((await callOk(client, 'close', { port_name: 'loop://m' })).status, 'closed');
    assert.equal((await callOk(client, 'close', { port_name: 'loop://m' })).status, 'already closed');
    assert.equal((await callOk(client, 'close', {})).status, 'already closed');
    assert.equal((await callOk(client, 'status', { port_name: 'loop://m' })).status, 'closed');
    const notOpen = await callError(client, 'write', { port_name: 'loop://m', data: 'x' });
    assert.match(notOpen, /FAILED_PRECONDITION/);
    assert.match(notOpen, /loop:\/\/m is not open/);
  } finally {
    await gateway.close();
  }
});

test('loop://: already open, port selection, bad values and missing devices', async () => {
  const gateway = await embeddedGateway();
  const { client } = gateway;
  try {
    const none = await callError(client, 'read', {});
    assert.match(none, /FAILED_PRECONDITION/);
    assert.match(none, /no port is open/);

    await callOk(client, 'open_port', { port_name: 'loop://a', baud_rate: 9600, terminator: '\n' });
    const again = await callError(client, 'open_port', { port_name: 'loop://a', baud_rate: 9600 });
    assert.match(again, /Port is already open/);

    // One port open: port_name may be left out.
    assert.equal((await callOk(client, 'write', { data: 'solo' })).port_name, 'loop://a');
    const solo = await callOk(client, 'read', {});
    assert.equal(solo.data, 'solo');
    assert.equal(solo.port_name, 'loop://a');
    assert.equal((await callOk(client, 'status', {})).port_name, 'loop://a');

    // Two open: leaving it out fails and lists them.
    await callOk(client, 'open_port', { port_name: 'loop://b', baud_rate: 9600 });
    for (const tool of ['write', 'read', 'close', 'reconfigure_port']) {
      const args = tool === 'write' ? { data: 'x' } : {};
      const text = await callError(client, tool, args);
      assert.match(text, /INVALID_ARGUMENT/, tool);
      assert.match(text, /port_name is required when several ports are open/, tool);
      assert.match(text, /loop:\/\/a/, tool);
      assert.match(text, /loop:\/\/b/, tool);
    }

    // Bad values name the field (and the values allowed).
    const cases = [
      [{ port_name: 'loop://c', baud_rate: 9600, data_bits: 9 }, /data_bits/],
      [{ port_name: 'loop://c', baud_rate: 9600, data_bits: 'nine' }, /data_bits/],
      [{ port_name: 'loop://c', baud_rate: 9600, parity: 'mark' }, /parity/],
      [{ port_name: 'loop://c', baud_rate: 9600, stop_bits: 3 }, /stop_bits/],
      [{ port_name: 'loop://c', baud_rate: 9600, flow_control: 'dtrdsr' }, /flow_control/],
      [{ port_name: 'loop://c', baud_rate: 0 }, /baud_rate/],
      [{ port_name: 'loop://c', baud_rate: 4000001 }, /baud_rate/],
    ];
    for (const [args, field] of cases) {
      const text = await callError(client, 'open_port', args);
      assert.match(text, /INVALID_ARGUMENT|invalid|must/i, JSON.stringify(args));
      assert.match(text, field, `${JSON.stringify(args)}: ${text}`);
    }
    const dataBits = await callError(client, 'open_port', { port_name: 'loop://c', baud_rate: 9600, data_bits: 9 });
    assert.match(dataBits, /eight/, 'the allowed values are listed');
    const badHex = await callError(client, 'write', { port_name: 'loop://a', data: 'zz', encoding: 'hex' });
    assert.match(badHex, /INVALID_ARGUMENT/);
    assert.match(badHex, /data/);
    const tooBig = await callError(client, 'read', { port_name: 'loop://a', max_bytes: 65537 });
    assert.match(tooBig, /max_bytes/);

    const missing = await callError(client, 'open_port', { port_name: '/dev/ttyLABGATE_NO_SUCH', baud_rate: 9600 });
    assert.match(missing, /NOT_FOUND/);
    assert.match(missing, /\/dev\/ttyLABGATE_NO_SUCH/);

    const status = await callOk(client, 'status', { port_name: 'loop://a' });
    assert.deepEqual([...status.open_ports].sort(), ['loop://a', 'loop://b']);
  } finally {
    await gateway.close();
  }
});

test('ownership across two MCP connections sharing one labgate-serial', async () => {
  const service = await startService(BIN.serial);
  const dirs = [tempDir(), tempDir()];
  const a = await connectStdio(['--serial-addr', service.address, '--data-dir', dirs[0]]);
  const b = await connectStdio(['--serial-addr', service.address, '--data-dir', dirs[1]]);
  try {
    await callOk(a.client, 'open_port', { port_name: 'loop://shared', baud_rate: 115200, terminator: '\n' });
    await callOk(a.client, 'write', { port_name: 'loop://shared', data: 'mine' });

    const refused = await callError(b.client, 'open_port', { port_name: 'loop://shared', baud_rate: 115200 });
    assert.match(refused, /FAILED_PRECONDITION/);
    assert.match(refused, /port loop:\/\/shared is in use by another client/);
    for (const [tool, args] of [['write', { data: 'theirs' }], ['read', {}], ['close', {}], ['reconfigure_port', { baud_rate: 9600 }]]) {
      const text = await callError(b.client, tool, { port_name: 'loop://shared', ...args });
      assert.match(text, /port loop:\/\/shared is in use by another client/, tool);
    }
    // Observing is allowed, and says whose it is.
    const seenByB = await callOk(b.client, 'status', { port_name: 'loop://shared' });
    assert.equal(seenByB.status, 'open');
    assert.equal(seenByB.owned_by_caller, false);
    assert.equal((await callOk(a.client, 'status', { port_name: 'loop://shared' })).owned_by_caller, true);
    assert.equal((await callOk(a.client, 'read', { port_name: 'loop://shared' })).data, 'mine',
      "B's refused calls left A's data alone");

    // A leaves: its lease ends, the service closes its ports, and B can open them.
    await a.client.close();
    await eventually(async () => (await callOk(b.client, 'status', { port_name: 'loop://shared' })).status === 'closed',
      'the port of the departed client to close');
    const opened = await callOk(b.client, 'open_port', { port_name: 'loop://shared', baud_rate: 115200, terminator: '\n' });
    assert.equal(opened.status, 'opened');
    await callOk(b.client, 'write', { port_name: 'loop://shared', data: 'theirs now' });
    assert.equal((await callOk(b.client, 'read', { port_name: 'loop://shared' })).data, 'theirs now');
    assert.equal((await callOk(b.client, 'status', { port_name: 'loop://shared' })).owned_by_caller, true);
  } finally {
    await a.client.close().catch(() => {});
    await b.client.close();
    const stopped = await service.stop('SIGTERM');
    assert.equal(stopped.code, 0, 'labgate-serial drains and exits 0 on SIGTERM');
    dirs.forEach(removeDir);
  }
});

test('notifications/cancelled during a slow read suppresses its response; labgate keeps serving', async () => {
  const dataDir = tempDir();
  const gateway = new RawGateway(await gatewayArgs(['--data-dir', dataDir]));
  try {
    await gateway.initialize();
    const call = (id, name, args) => gateway.request(id, 'tools/call', { name, arguments: args });
    const opened = await call('open', 'open_port', { port_name: 'loop://slow', baud_rate: 9600 });
    assert.equal(opened.result.isError, false, JSON.stringify(opened));
    await call('open2', 'open_port', { port_name: 'loop://other', baud_rate: 9600, terminator: '\n' });

    await gateway.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call',
      params: { name: 'read', arguments: { port_name: 'loop://slow', timeout_ms: 20000 } } });
    // Requests are served concurrently: the slow read does not hold up others.
    const ping = await gateway.request('ping-1', 'ping');
    assert.deepEqual(ping.result, {});
    const status = await call('status-1', 'status', { port_name: 'loop://slow' });
    assert.equal(status.result.structuredContent.status, 'open');

    await gateway.send({ jsonrpc: '2.0', method: 'notifications/cancelled',
      params: { requestId: 'slow', reason: 'the user gave up' } });

    // The gateway keeps serving, on other ports and on the protocol.
    await call('w', 'write', { port_name: 'loop://other', data: 'still here' });
    const read = await call('r', 'read', { port_name: 'loop://other' });
    assert.equal(read.result.structuredContent.data, 'still here');
    assert.deepEqual((await gateway.request('ping-2', 'ping')).result, {});
    const listed = await gateway.request('list', 'tools/list');
    assert.ok(listed.result.tools.some((t) => t.name === 'read'));

    // The cancelled read gave up its port: data written now is not swallowed by it and
    // does not revive it, and the next read gets it.
    await call('w2', 'write', { port_name: 'loop://slow', data: 'late' });
    const late = await call('r2', 'read', { port_name: 'loop://slow', timeout_ms: 2000 });
    assert.equal(late.result.structuredContent.data, 'late', JSON.stringify(late));
    await sleep(200);
    await gateway.request('ping-3', 'ping');
    assert.equal(gateway.frames.find((f) => f.message.id === 'slow'), undefined,
      'no response to the cancelled read');
    assert.deepEqual(gateway.badOutput, []);
  } finally {
    const exited = await gateway.close();
    removeDir(dataDir);
    assert.equal(exited.code, 0, `labgate exits 0 at EOF; stderr: ${gateway.stderr.slice(-1000)}`);
  }
});

test('a read still waiting at the call deadline is DEADLINE_EXCEEDED and frees its port', async () => {
  const dataDir = tempDir();
  const { client } = await connectStdio(['--data-dir', dataDir, '--call-timeout-ms', '500']);
  try {
    // The port's own default timeout (5 s) is unknown to the gateway, so the call deadline stays
    // 500 ms; a read that names its timeout gets that much more (below).
    await callOk(client, 'open_port', { port_name: 'loop://deadline', baud_rate: 9600, timeout_ms: 5000 });
    const started = Date.now();
    assert.match(await callError(client, 'read', { port_name: 'loop://deadline' }), /DEADLINE_EXCEEDED/);
    assert.ok(Date.now() - started < 4000, 'answered at the deadline, not at the read timeout');
    // A read that says it may wait 1.5 s is given that long past the 500 ms deadline: it times
    // out by itself, with nothing read, rather than being cut off.
    const waited = await callOk(client, 'read', { port_name: 'loop://deadline', timeout_ms: 1500 });
    assert.equal(waited.timed_out, true);
    assert.equal(waited.bytes_read, 0);
    // The timed-out read no longer holds the port: what comes next goes to the next read.
    await callOk(client, 'write', { port_name: 'loop://deadline', data: 'after' });
    const read = await callOk(client, 'read', { port_name: 'loop://deadline', timeout_ms: 300 });
    assert.equal(read.data, 'after');
  } finally {
    await client.close();
    removeDir(dataDir);
  }
});

test('wrong argument types and an unknown tool are refused by name, and labgate keeps serving', async () => {
  const gateway = await embeddedGateway();
  try {
    const { client } = gateway;
    assert.match(await callError(client, 'open_port', { port_name: 'loop://typed', baud_rate: 'fast' }),
      /baud_rate/);
    assert.match(await callError(client, 'read', { port_name: 42 }), /port_name/);
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /-32602|Unknown tool/);
    await callOk(client, 'open_port', { port_name: 'loop://typed', baud_rate: 9600 });
    assert.equal((await callOk(client, 'status', { port_name: 'loop://typed' })).status, 'open');
  } finally {
    await gateway.close();
  }
});

test('control lines on a loop:// plug: set, pulse and break, read back, and recorded in order', async () => {
  const gateway = await embeddedGateway();
  try {
    const { client } = gateway;
    const { session } = await callOk(client, 'create_session', { device_id: 'board' });
    await callOk(client, 'open_port', { port_name: 'loop://board', baud_rate: 115200, session_id: session.id });
    const set = await callOk(client, 'set_signals', { port_name: 'loop://board', dtr: true, rts: false });
    assert.deepEqual({ ...set }, { port_name: 'loop://board', dtr: true, rts: false, cts: false,
      dsr: true, dcd: true, ri: false });
    const pulsed = await callOk(client, 'pulse_signal', { signal: 'dtr', level: false, ms: 50 });
    assert.equal(pulsed.dtr, true, 'DTR is back high after the pulse');
    await callOk(client, 'send_break', { ms: 10 });
    await callOk(client, 'write', { port_name: 'loop://board', data: 'after' });
    const lines = await callOk(client, 'get_signals', {});
    assert.equal(lines.dsr, true);
    assert.equal(lines.cts, false);

    // Bad input is refused by name and changes nothing.
    assert.match(await callError(client, 'pulse_signal', { signal: 'dtr', level: false, ms: 0 }), /ms/);
    assert.match(await callError(client, 'pulse_signal', { signal: 'cts', level: false, ms: 5 }), /signal/);
    assert.match(await callError(client, 'set_signals', {}), /dtr, rts or both/);
    assert.equal((await callOk(client, 'get_signals', {})).dtr, true);

    // The transcript has each change as an event, in order with the I/O.
    const events = await eventually(async () => {
      const { messages } = await callOk(client, 'list_messages', { session_id: session.id });
      const texts = messages.map((m) => m.content);
      return texts.includes('after') ? texts : null;
    }, 'the write in the transcript');
    const order = ['DTR high, RTS low', 'DTR low for 50 ms', 'break for 10 ms', 'after']
      .map((text) => events.indexOf(text));
    assert.ok(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1])), JSON.stringify(events));
  } finally {
    await gateway.close();
  }
});

test('run_sequence: a port opened with named sequences runs them by name; an unknown name says what there is', async () => {
  const gateway = await embeddedGateway();
  try {
    const { client } = gateway;
    const opened = await callOk(client, 'open_port', {
      port_name: 'loop://seq', baud_rate: 115200,
      sequences: [
        { name: 'reset', steps: [{ signal: 'dtr', level: false, ms: 20 }, { delay_ms: 5 }] },
        { name: 'hello', steps: [{ send: 'HELLO' }, { expect: ['HEL+O'], timeout_ms: 1000 }] },
      ],
    });
    assert.deepEqual(opened.settings.sequences.map((q) => q.name), ['reset', 'hello']);
    const reset = await callOk(client, 'run_sequence', { name: 'reset' });
    assert.equal(reset.completed, true);
    assert.deepEqual(reset.steps.map((s) => s.kind), ['signal', 'delay']);
    const hello = await callOk(client, 'run_sequence', { port_name: 'loop://seq', name: 'hello' });
    assert.equal(hello.steps[1].matched, true);
    assert.equal(hello.steps[1].match, 'HELLO');
    assert.match(await callError(client, 'run_sequence', { name: 'flash' }),
      /no sequence 'flash'.*the port was opened with: reset, hello/);
    assert.match(await callError(client, 'open_port', {
      port_name: 'loop://seq2', baud_rate: 115200, sequences: [{ name: 'bad', steps: [{ signal: 'dtr' }] }],
    }), /sequences\[0\]\.steps\[0\]\.level is required with signal/);
  } finally {
    await gateway.close();
  }
});

test('wait_for: a prompt split across writes, a time-out that consumes nothing, a bad pattern, cancellation', async () => {
  const gateway = await embeddedGateway();
  try {
    const { client } = gateway;
    const { session } = await callOk(client, 'create_session', { device_id: 'board' });
    await callOk(client, 'open_port', { port_name: 'loop://boot', baud_rate: 115200, session_id: session.id });
    const tools = (await client.listTools()).tools;
    const waitTool = tools.find((t) => t.name === 'wait_for');
    assert.ok(waitTool, 'tools/list has wait_for');
    assert.match(waitTool.description, /RE2/);
    assert.deepEqual(waitTool.inputSchema.properties.from.enum, ['buffered', 'new']);

    // wait_for holds the port as query does, so on a loopback the "device" speaks first. Half
    // a prompt: the wait times out, consumes nothing, and shows what came.
    await callOk(client, 'write', { data: 'Booting...\nlab-board log' });
    const early = await callOk(client, 'wait_for', { patterns: ['(\\w+) login: '], timeout_ms: 100 });
    assert.equal(early.timed_out, true);
    assert.equal(early.matched, false);
    assert.equal(early.bytes_consumed, 0);
    assert.equal(early.before, 'Booting...\nlab-board log');
    // The rest arrives: the retry sees the same bytes and matches across both writes.
    await callOk(client, 'write', { data: 'in: ' });
    const found = await callOk(client, 'wait_for', { patterns: ['Password:', '(\\w+) login: '], timeout_ms: 2000 });
    assert.equal(found.matched, true);
    assert.equal(found.pattern_index, 1);
    assert.deepEqual(found.groups, ['board']);  // \w stops at the hyphen
    assert.equal(found.before, 'Booting...\nlab-');
    assert.equal(found.timed_out, false);

    // A pattern RE2 refuses is a clear tool error; the port keeps serving.
    assert.match(await callError(client, 'wait_for', { patterns: ['(open'], timeout_ms: 100 }), /patterns\[0\].*missing \)/);

    // Cancelled by the client: the port is free again at once.
    const controller = new AbortController();
    const cancelled = client.callTool({ name: 'wait_for', arguments: { patterns: ['never'], timeout_ms: 60000 } },
      undefined, { signal: controller.signal });
    await sleep(100);
    controller.abort();
    await assert.rejects(cancelled);
    const started = Date.now();
    await callOk(client, 'write', { data: 'Password: ' });
    const again = await callOk(client, 'wait_for', { patterns: ['Password'], timeout_ms: 2000 });
    assert.equal(again.matched, true);
    assert.ok(Date.now() - started < 2000, 'the cancelled wait no longer holds the port');

    // The transcript says what the waits found.
    const texts = await eventually(async () => {
      const { messages } = await callOk(client, 'list_messages', { session_id: session.id });
      const all = messages.map((m) => m.content);
      return all.some((t) => t.startsWith('wait_for timed out')) ? all : null;
    }, 'the wait_for events');
    assert.ok(texts.some((t) => /^wait_for matched "\(\\w\+\) login: " after \d+ ms$/.test(t)), JSON.stringify(texts));
  } finally {
    await gateway.close();
  }
});

