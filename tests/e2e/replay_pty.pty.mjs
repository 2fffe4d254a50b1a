// Record and replay with the official MCP SDK client v1 (2025-11-25), on a real pty power
// supply through the real libserialport. Runs inside the pty harness, which CMake registers as
// e2e.replay_pty:
//   labgate-pty-run --devices 1 --mode psu -- node --test replay_pty.pty.mjs
// A session is recorded against the supply; replay://SESSION_ID then answers the same calls
// with the same replies, a changed command gets a divergence naming the record, the replay's
// own transcript is whole, and an export imported back replays too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callOk } from './lib/harness.mjs';
import { callError, embeddedGateway } from './lib/serial_helpers.mjs';

const DEVICES = (process.env.LABGATE_PTY_DEVICES ?? '').split(',').filter(Boolean);

// The procedure an assistant runs on the bench: identify, set 4.5 V, switch on, read back.
const PROCEDURE = [
  ['query', '*IDN?'],
  ['write', 'VOLT 4.5'],
  ['query', 'VOLT?'],
  ['write', 'OUTP ON'],
  ['query', 'MEAS:VOLT?'],
];

async function run(client, port, steps = PROCEDURE) {
  const replies = [];
  for (const [tool, data] of steps) {
    const result = await callOk(client, tool, { port_name: port, data });
    replies.push(tool === 'query' ? result.data : null);
  }
  return replies;
}

async function openBound(client, port, sessionId) {
  await callOk(client, 'open_port', {
    port_name: port, baud_rate: 115200, terminator: '\n', timeout_ms: 2000, session_id: sessionId,
  });
}

async function transcript(client, sessionId) {
  const { messages } = await callOk(client, 'list_messages', { session_id: sessionId, limit: 1000 });
  return messages;
}

async function settled(client, sessionId, count) {
  for (let i = 0; i < 100; i++) {
    const messages = await transcript(client, sessionId);
    if (messages.length >= count) return messages;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return transcript(client, sessionId);
}

test('the pty harness provides a power supply', () => {
  assert.ok(DEVICES.length >= 1,
    'LABGATE_PTY_DEVICES must name a pty device: run this file through labgate-pty-run (ctest -R e2e.replay_pty)');
});

test('v1 client: a recorded bench session replays, and a departure from it is named', async () => {
  const gateway = await embeddedGateway();
  const { client } = gateway;
  try {
    const { session: recorded } = await callOk(client, 'create_session', { device_id: 'psu-bench' });
    await openBound(client, DEVICES[0], recorded.id);
    const benchReplies = await run(client, DEVICES[0]);
    assert.match(benchReplies[0], /^LABGATE,SIM-PSU,/);
    assert.equal(benchReplies[2], '4.5');
    await callOk(client, 'close', { port_name: DEVICES[0] });
    const original = (await settled(client, recorded.id, 9)).filter((m) => m.direction !== 'event');
    assert.equal(original.filter((m) => m.direction === 'tx').length, 5);

    // The same procedure against the recording gets the same replies, with no hardware.
    const { session: rehearsal } = await callOk(client, 'create_session', { device_id: 'rehearsal' });
    const replay = `replay://${recorded.id}`;
    await openBound(client, replay, rehearsal.id);
    assert.deepEqual(await run(client, replay), benchReplies);
    let status = await callOk(client, 'replay_status', { port_name: replay });
    assert.equal(status.matched, 5);
    assert.equal(status.total_tx, 5);
    assert.equal(status.finished, true, status.summary);
    await callOk(client, 'close', { port_name: replay });

    // A changed command: the write is refused with the record it departed from.
    const again = `replay://${recorded.id}?speed=0`;
    await callOk(client, 'open_port', { port_name: again, baud_rate: 115200, terminator: '\n' });
    await run(client, again, PROCEDURE.slice(0, 1));
    const voltRecord = original.find((m) => m.direction === 'tx' && m.content === 'VOLT 4.5\n');
    const diverged = await callError(client, 'write', { port_name: again, data: 'VOLT 12' });
    assert.match(diverged, /replay diverged: sent "VOLT 12\\n" where session .* has "VOLT 4\.5\\n"/);
    assert.match(diverged, new RegExp(`\\(message ${voltRecord.message_id}\\)`));
    status = await callOk(client, 'replay_status', { port_name: again });
    assert.equal(status.divergence_count, 1);
    assert.equal(status.divergences[0].message_id, voltRecord.message_id);
    assert.equal(status.divergences[0].sent, 'VOLT 12\n');
    assert.equal(status.divergences[0].expected, 'VOLT 4.5\n');
    assert.equal(status.matched, 1);
    await callOk(client, 'close', { port_name: again });

    // The rehearsal's own transcript has every tx and rx of the recording.
    const rehearsed = (await settled(client, rehearsal.id, 11)).filter((m) => m.direction !== 'event');
    assert.deepEqual(rehearsed.map((m) => [m.direction, m.content]),
      original.map((m) => [m.direction, m.content]));

    // Sessions move between labs as files: an export imported back replays the same.
    const { export: exported } = await callOk(client, 'export_session', { session_id: recorded.id });
    const imported = await callOk(client, 'import_session', { export: exported });
    assert.equal(imported.imported_from, recorded.id);
    assert.equal(imported.session.closed, true);
    const fromFile = `replay://${imported.session.id}?speed=0`;
    await callOk(client, 'open_port', { port_name: fromFile, baud_rate: 115200, terminator: '\n' });
    assert.deepEqual(await run(client, fromFile), benchReplies);
    await callOk(client, 'close', { port_name: fromFile });

    // Bad replays are refused by name, and the gateway keeps serving.
    assert.match(await callError(client, 'open_port', { port_name: 'replay://no-such-session', baud_rate: 9600 }),
      /no session no-such-session to replay/);
    assert.match(await callError(client, 'open_port', { port_name: `replay://${recorded.id}?mode=loose`, baud_rate: 9600 }),
      /mode=lenient/);
    assert.match(await callError(client, 'import_session', { export: { session: { device_id: 'x' }, messages: [{ content: '' }] } }),
      /message 1 of the import: content is required/);
    await callOk(client, 'list_ports', {});
  } finally {
    await gateway.close();
  }
});
