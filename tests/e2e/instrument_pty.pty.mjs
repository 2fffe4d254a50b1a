// A named power supply with limits in volts, with the official MCP SDK clients v1 (2025-11-25)
// and v2 (2026-07-28), on real pty devices through the real libserialport. Runs inside the pty
// harness with its power supply simulator, which CMake registers as e2e.instrument_pty:
//   labgate-pty-run --devices 2 --mode psu -- node --test instrument_pty.pty.mjs
// list_instruments finds the supply, open_port {instrument} opens it by name (its identity
// probed), and a query over the profile's limit is refused with the limit named to the client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { callOk as callOkV1, tempDir, removeDir } from './lib/harness.mjs';
import { callError, embeddedGateway } from './lib/serial_helpers.mjs';
import { connectV2Stdio, callOk as callOkV2 } from './lib/v2_client.mjs';

const DEVICES = (process.env.LABGATE_PTY_DEVICES ?? '').split(',').filter(Boolean);

const PROFILE = {
  model: 'SIM-PSU',
  match: { probe: { command: '*IDN?', reply: '^LABGATE,SIM-PSU,(?P<serial>[^,]+),' } },
  settings: { baud_rate: 115200, terminator: '\n', timeout_ms: 2000 },
  quantities: {
    voltage: { unit: 'V', min: 0, max: 30, headers: ['[SOURce#:]VOLTage[:LEVel][:IMMediate][:AMPLitude]'] },
    current: { unit: 'A', min: 0, max: 3, headers: ['[SOURce#:]CURRent[:LEVel][:IMMediate][:AMPLitude]'] },
  },
  lists: [{ header: 'APPLy', channel_parameter: 0, channels: { CH1: 1, CH2: 2, CH3: 3 },
    quantities: { 1: 'voltage', 2: 'current' } }],
  limits: [{ name: 'max-voltage', quantity: 'voltage', max: 5 }],
};

// The profiles directory and instruments file, in `dir`: psu-a and psu-b at the two ptys.
function writeConfig(dir) {
  mkdirSync(join(dir, 'profiles'));
  writeFileSync(join(dir, 'profiles', 'sim-psu.json'), JSON.stringify(PROFILE));
  writeFileSync(join(dir, 'instruments.json'), JSON.stringify({
    instruments: [
      { name: 'psu-a', profile: 'SIM-PSU', match: { port_name: DEVICES[0] }, bench: 'bench-1' },
      { name: 'psu-b', profile: 'SIM-PSU', match: { port_name: DEVICES[1] }, bench: 'bench-2' },
    ],
  }));
  return ['--profiles', join(dir, 'profiles'), '--instruments', join(dir, 'instruments.json')];
}

test('the pty harness provides two power supplies', () => {
  assert.ok(DEVICES.length >= 2,
    'LABGATE_PTY_DEVICES must name two pty devices: run this file through labgate-pty-run (ctest -R e2e.instrument_pty)');
});

async function listOpenAndRefuse(client, callOk, name, device) {
  const { instruments } = await callOk(client, 'list_instruments', {});
  const listed = instruments.find((i) => i.name === name);
  assert.ok(listed, JSON.stringify(instruments));
  assert.equal(listed.model, 'SIM-PSU');
  assert.equal(listed.present, true);
  assert.equal(listed.port, device);
  assert.deepEqual(listed.limits.map((l) => [l.name, l.quantity, l.unit, l.max]),
    [['max-voltage', 'voltage', 'V', 5]]);

  // Arguments given override the profile's settings; the rest are the profile's.
  const opened = await callOk(client, 'open_port', {
    instrument: name, timeout_ms: 1500,
    sequences: [{ name: 'too-high', steps: [{ send: 'VOLT 4' }, { send: 'VOLT 12' }] }],
  });
  assert.equal(opened.port_name, name);
  assert.equal(opened.device_path, device);
  assert.equal(opened.identity, 'LABGATE,SIM-PSU,PSU0001,1.0');
  assert.equal(opened.settings.terminator, '\n', "the profile's settings");
  assert.equal(opened.settings.baud_rate, 115200);
  assert.equal(opened.settings.timeout_ms, 1500, 'the argument given');
  // A sequence is bound by the same limits: refused whole, before its first send.
  assert.match(await callError(client, 'run_sequence', { port_name: name, name: 'too-high' }),
    /12 V exceeds max-voltage \(5 V\)/);

  // Over the limit: refused, and the client is told which limit and why.
  const refused = await callError(client, 'query', { port_name: name, data: 'APPL CH1,12,0.5;VOLT?' });
  assert.match(refused, /12 V exceeds max-voltage \(5 V\) on .* channel 1/);
  assert.match(refused, new RegExp(name));
  // Within it: the supply is set and says so.
  const noChange = await callOk(client, 'query', { port_name: name, data: 'VOLT?' });
  assert.equal(noChange.data, '0', 'nothing refused reached the supply');
  await callOk(client, 'write', { port_name: name, data: 'VOLT 4.9' });
  const reply = await callOk(client, 'query', { port_name: name, data: 'VOLT?' });
  assert.equal(reply.data, '4.9');
  await callOk(client, 'close', { port_name: name });
}

test('v1 client (2025-11-25): list_instruments, open_port {instrument}, an over-limit query refused', async () => {
  const dir = tempDir('labgate-instruments-');
  const gateway = await embeddedGateway(writeConfig(dir));
  try {
    await listOpenAndRefuse(gateway.client, callOkV1, 'psu-a', DEVICES[0]);
  } finally {
    await gateway.close();
    removeDir(dir);
  }
});

test('v2 client (2026-07-28): list_instruments, open_port {instrument}, an over-limit query refused', async () => {
  const dir = tempDir('labgate-instruments-');
  const connection = await connectV2Stdio(writeConfig(dir));
  try {
    assert.equal(connection.client.getNegotiatedProtocolVersion(), '2026-07-28');
    await listOpenAndRefuse(connection.client, callOkV2, 'psu-b', DEVICES[1]);
  } finally {
    await connection.close();
    removeDir(dir);
  }
});
