// The official MCP SDK client drives labgate's serial tools on real pty devices through
// the real libserialport. Runs inside the pty harness (tests/serial_harness), which
// CMake registers as e2e.serial_pty:
//   labgate-pty-run --devices 2 --mode scpi --reconnect-ms 300 -- node --test serial_pty.pty.mjs
// The harness names its devices in LABGATE_PTY_DEVICES; without them this test fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, callOk, startService } from './lib/harness.mjs';
import { callError, eventually, embeddedGateway } from './lib/serial_helpers.mjs';

const INSTRUMENT_ID = 'LABGATE,SIM-PTY,0001,1.0';
const DEVICES = (process.env.LABGATE_PTY_DEVICES ?? '').split(',').filter(Boolean);

test('the pty harness provides two devices', () => {
  assert.ok(DEVICES.length >= 2,
    'LABGATE_PTY_DEVICES must name two pty devices: run this file through labgate-pty-run (ctest -R e2e.serial_pty)');
});

// Reads binary (hex) until `length` bytes have come, or a read times out.
async function readBytes(client, port, length) {
  let bytes = Buffer.alloc(0);
  while (bytes.length < length) {
    const read = await callOk(client, 'read', { port_name: port, encoding: 'hex', max_bytes: 65536, timeout_ms: 2000 });
    if (read.timed_out && !read.data) break;
    bytes = Buffer.concat([bytes, Buffer.from(read.data ?? '', 'hex')]);
  }
  return bytes;
}

test('pty: *IDN? round trip, settings, status and metrics', async () => {
  const gateway = await embeddedGateway();
  const { client } = gateway;
  const [port] = DEVICES;
  try {
    const opened = await callOk(client, 'open_port', {
      port_name: port, baud_rate: 115200, data_bits: 'eight', parity: 'none', stop_bits: 1,
      flow_control: 'none', terminator: '\n', timeout_ms: 2000,
    });
    assert.equal(opened.status, 'opened');
    assert.equal(opened.port_name, port);
    assert.equal(opened.settings.baud_rate, 115200);

    const listed = await callOk(client, 'list_ports', {});
    assert.ok(listed.ports.some((p) => p.port_name === port), `${port} is listed while open`);

    for (let i = 0; i < 3; ++i) {
      const wrote = await callOk(client, 'write', { port_name: port, data: '*IDN?' });
      assert.equal(wrote.bytes_written, 6, 'the terminator is appended');
      const answer = await callOk(client, 'read', { port_name: port });
      assert.equal(answer.data, INSTRUMENT_ID, 'the terminator is stripped');
      assert.notEqual(answer.timed_out, true);
    }
    // An instrument answering with no terminator: the text read times out and
    // returns what came.
    await callOk(client, 'write', { port_name: port, data: 'PARTIAL' });
    const partial = await callOk(client, 'read', { port_name: port, timeout_ms: 300 });
    assert.equal(partial.data, 'partial');
    assert.equal(partial.timed_out, true);
    // Silence: 0 bytes, not an error.
    const silent = await callOk(client, 'read', { port_name: port, timeout_ms: 100 });
    assert.equal(silent.bytes_read ?? 0, 0);
    assert.equal(silent.timed_out, true);

    const reconfigured = await callOk(client, 'reconfigure_port', { port_name: port, baud_rate: 9600, stop_bits: 'two', parity: 'even' });
    assert.equal(reconfigured.settings.baud_rate, 9600);
    assert.equal(reconfigured.settings.stop_bits, 'two');
    assert.equal(reconfigured.settings.parity, 'even');
    await callOk(client, 'write', { port_name: port, data: '*IDN?' });
    assert.equal((await callOk(client, 'read', { port_name: port })).data, INSTRUMENT_ID);

    const status = await callOk(client, 'status', { port_name: port });
    assert.equal(status.status, 'open');
    assert.equal(status.settings.baud_rate, 9600);
    const metrics = await callOk(client, 'metrics', { port_name: port });
    assert.equal(metrics.state, 'open');
    assert.equal(metrics.bytes_written_total, 6, 'reconfigure reset the counters');
    assert.equal(metrics.bytes_read_total, INSTRUMENT_ID.length + 1);
    const described = await callOk(client, 'describe_port', { port_name: port });
    assert.equal(described.state, 'open');
    assert.equal(described.owned_by_caller, true);

    assert.equal((await callOk(client, 'close', { port_name: port })).status, 'closed');
    assert.equal((await callOk(client, 'close', { port_name: port })).status, 'already closed');
  } finally {
    await gateway.close();
  }
});

test('pty: binary round trip with NUL bytes, through hex and base64', async () => {
  const gateway = await embeddedGateway();
  const { client } = gateway;
  const [port] = DEVICES;
  try {
    await callOk(client, 'open_port', { port_name: port, baud_rate: 115200, timeout_ms: 2000 });
    // Every byte value except the instrument's line endings (CR, LF), NULs repeated,
    // then LF: the SCPI instrument echoes the whole line back.
    const body = [];
    for (let round = 0; round < 4; ++round) {
      for (let b = 0; b < 256; ++b) if (b !== 0x0a && b !== 0x0d) body.push(b);
      body.push(0, 0, 0);
    }
    const payload = Buffer.from([...body, 0x0a]);
    const wrote = await callOk(client, 'write', { port_name: port, data: payload.toString('hex'), encoding: 'hex' });
    assert.equal(wrote.bytes_written, payload.length);
    const echoed = await readBytes(client, port, payload.length);
    assert.equal(echoed.length, payload.length);
    assert.ok(echoed.equals(payload), 'the bytes come back unchanged');

    const small = Buffer.from([0x00, 0x41, 0x00, 0xff, 0x00, 0x0a]);
    await callOk(client, 'write', { port_name: port, data: small.toString('base64'), encoding: 'base64' });
    let got = Buffer.alloc(0);
    while (got.length < small.length) {
      const read = await callOk(client, 'read', { port_name: port, encoding: 'base64', timeout_ms: 2000 });
      assert.equal(read.encoding, 'base64');
      if (read.timed_out && !read.data) break;
      got = Buffer.concat([got, Buffer.from(read.data, 'base64')]);
    }
    assert.ok(got.equals(small), `got ${got.toString('hex')}`);
  } finally {
    await gateway.close();
  }
});

test('pty: two ports at once, each answering its own queries', async () => {
  const gateway = await embeddedGateway();
  const { client } = gateway;
  try {
    for (const port of DEVICES.slice(0, 2)) {
      await callOk(client, 'open_port', { port_name: port, baud_rate: 115200, terminator: '\n', timeout_ms: 2000 });
    }
    const selection = await callError(client, 'read', {});
    assert.match(selection, /port_name is required when several ports are open/);
    assert.ok(DEVICES.slice(0, 2).every((p) => selection.includes(p)), selection);

    // Each port's calls run in order on its own worker; the two ports run side by side.
    await Promise.all(DEVICES.slice(0, 2).map(async (port, n) => {
      for (let i = 0; i < 10; ++i) {
        const tag = `PORT${n}-${i}`;
        await callOk(client, 'write', { port_name: port, data: tag });
        assert.equal((await callOk(client, 'read', { port_name: port })).data, tag);
      }
    }));
  } finally {
    await gateway.close();
  }
});

test('pty: a stalled instrument on one port does not hold up another', async () => {
  const gateway = await embeddedGateway();
  const { client } = gateway;
  const [slow, fast] = DEVICES;
  try {
    for (const port of [slow, fast]) {
      await callOk(client, 'open_port', { port_name: port, baud_rate: 115200, terminator: '\n', timeout_ms: 2000 });
    }
    // The instrument stops reading and answering for 4 s; a read there waits out its
    // 3 s timeout.
    await callOk(client, 'write', { port_name: slow, data: 'STALL 4000' });
    let stalledDone = false;
    const stalled = callOk(client, 'read', { port_name: slow, timeout_ms: 3000 })
      .finally(() => { stalledDone = true; });
    for (let i = 0; i < 5; ++i) {
      await callOk(client, 'write', { port_name: fast, data: '*IDN?' });
      assert.equal((await callOk(client, 'read', { port_name: fast })).data, INSTRUMENT_ID);
      assert.equal((await callOk(client, 'status', { port_name: slow })).status, 'open');
    }
    assert.equal(stalledDone, false, 'the other port answered while the stalled read was still waiting');
    const read = await stalled;
    assert.equal(read.timed_out, true);
    assert.equal(read.bytes_read, 0);
    // A query sent while the instrument is still stalled is answered once it wakes.
    await callOk(client, 'write', { port_name: slow, data: '*IDN?' });
    const late = await callOk(client, 'read', { port_name: slow, timeout_ms: 5000 });
    assert.equal(late.data, INSTRUMENT_ID);
  } finally {
    await gateway.close();
  }
});

test('pty: device drop-off is UNAVAILABLE "device disconnected", and the port reopens when it returns', async () => {
  const gateway = await embeddedGateway();
  const { client } = gateway;
  const port = DEVICES[1];
  try {
    await callOk(client, 'open_port', { port_name: port, baud_rate: 115200, terminator: '\n', timeout_ms: 2000 });
    await callOk(client, 'write', { port_name: port, data: '*IDN?' });
    assert.equal((await callOk(client, 'read', { port_name: port })).data, INSTRUMENT_ID);

    await callOk(client, 'write', { port_name: port, data: 'DROP' });
    const lost = await callError(client, 'read', { port_name: port, timeout_ms: 2000 });
    assert.match(lost, /UNAVAILABLE/);
    assert.match(lost, /device disconnected/);
    const status = await callOk(client, 'status', { port_name: port });
    assert.equal(status.status, 'error');
    const write = await callError(client, 'write', { port_name: port, data: '*IDN?' });
    assert.match(write, /UNAVAILABLE.*device disconnected|device disconnected/);

    // The harness brings the instrument back (--reconnect-ms); opening again replaces
    // the failed port.
    await eventually(async () => {
      const result = await client.callTool({ name: 'open_port',
        arguments: { port_name: port, baud_rate: 115200, terminator: '\n', timeout_ms: 2000 } });
      return !result.isError;
    }, `${port} to open again once its instrument is back`, 15000);
    await callOk(client, 'write', { port_name: port, data: '*IDN?' });
    assert.equal((await callOk(client, 'read', { port_name: port })).data, INSTRUMENT_ID);
    assert.equal((await callOk(client, 'status', { port_name: port })).status, 'open');
    assert.equal((await callOk(client, 'close', { port_name: port })).status, 'closed');
  } finally {
    await gateway.close();
  }
});

// The client that opened `port` (as it names it) hears, as MCP logs at info under
// "serial", its device drop off (noticed by the serial service with no call of the
// client's: the gateway follows the port's events) and come back once the port is opened
// again; each exactly once.
async function expectDeviceLostAndBack(client, logs, port) {
  const seen = (event) => logs.filter((p) => p.logger === 'serial' && p.data?.event === event && p.data?.port_name === port);
  const settings = { port_name: port, baud_rate: 115200, terminator: '\n', timeout_ms: 2000 };
  await client.setLoggingLevel('info');
  assert.equal((await callOk(client, 'open_port', settings)).port_name, port);
  await callOk(client, 'write', { port_name: port, data: '*IDN?' });
  assert.equal((await callOk(client, 'read', { port_name: port })).data, INSTRUMENT_ID);
  assert.deepEqual(seen('device_lost'), []);

  // The instrument drops off; the client makes no call until it is told.
  await callOk(client, 'write', { port_name: port, data: 'DROP' });
  const [lost] = await eventually(() => seen('device_lost').length > 0 && seen('device_lost'),
    'the device_lost log', 15000);
  assert.equal(lost.level, 'info');
  assert.equal(lost.data.reason, 'device disconnected');
  assert.equal((await callOk(client, 'status', { port_name: port })).status, 'error');
  assert.deepEqual(seen('device_back'), [], 'not back before the port is open again');

  // The harness brings the instrument back (--reconnect-ms); the client opens the port again.
  await eventually(async () => {
    const result = await client.callTool({ name: 'open_port', arguments: settings });
    return !result.isError;
  }, `${port} to open again once its instrument is back`, 15000);
  const [back] = await eventually(() => seen('device_back').length > 0 && seen('device_back'),
    'the device_back log', 15000);
  assert.equal(back.level, 'info');
  await callOk(client, 'write', { port_name: port, data: '*IDN?' });
  assert.equal((await callOk(client, 'read', { port_name: port })).data, INSTRUMENT_ID);
  assert.equal((await callOk(client, 'close', { port_name: port })).status, 'closed');
  assert.equal(seen('device_lost').length, 1, JSON.stringify(logs));
  assert.equal(seen('device_back').length, 1, JSON.stringify(logs));
  // Port events name the port only as the client does.
  const events = logs.filter((p) => ['device_lost', 'device_back'].includes(p.data?.event));
  assert.equal(events.length, 2, JSON.stringify(logs));
}

test('pty: the opener hears "device_lost" and "device_back" log notifications', async () => {
  const logs = [];
  const gateway = await embeddedGateway([], {
    setup(client) {
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
    },
  });
  try {
    await expectDeviceLostAndBack(gateway.client, logs, DEVICES[0]);
  } finally {
    await gateway.close();
  }
});

// Two benches (two labgate-serial processes, which share this harness's devices): the
// port is bench2's, the logs name it bench2:<device>, and bench1 never touches it.
test('pty through a bench: the opener of bench2:<device> hears "device_lost" and "device_back" by that name', async () => {
  const bench1 = await startService(BIN.serial);
  const bench2 = await startService(BIN.serial);
  const logs = [];
  let gateway;
  try {
    gateway = await embeddedGateway(
      ['--serial-addr', `bench1=${bench1.address}`, '--serial-addr', `bench2=${bench2.address}`], {
        setup(client) {
          client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
        },
      });
    await expectDeviceLostAndBack(gateway.client, logs, `bench2:${DEVICES[0]}`);
    assert.ok(bench2.stderr().includes(`opened ${DEVICES[0]}`), bench2.stderr());
    assert.ok(!bench1.stderr().includes(DEVICES[0]), bench1.stderr());
  } finally {
    await gateway?.close();
    await bench1.stop();
    await bench2.stop();
  }
});
