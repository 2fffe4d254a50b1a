// "Boot the board and log in" in three tool calls, with the official MCP SDK clients v1
// (2025-11-25) and v2 (2026-07-28), on real pty devices through the real libserialport.
// Runs inside the pty harness with its board simulator, which CMake registers as
// e2e.board_pty:
//   labgate-pty-run --devices 2 --mode board -- node --test board_pty.pty.mjs
// The board's reset is its DTR line (the harness's shim tells it what libserialport drives):
// a pulse of DTR low reboots it, it prints a banner and a login prompt, and it answers a
// login. The transcript must show every byte with its time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callOk as callOkV1 } from './lib/harness.mjs';
import { eventually, embeddedGateway } from './lib/serial_helpers.mjs';
import { connectV2Stdio, callOk as callOkV2 } from './lib/v2_client.mjs';

const DEVICES = (process.env.LABGATE_PTY_DEVICES ?? '').split(',').filter(Boolean);
const BANNER = '\r\nlabgate-sim boot 2.1 (reset)\r\nDRAM: 64 MiB\r\nStarting kernel ...\r\n';
const SHELL_PROMPT = 'root@labgate-sim:~# ';

test('the pty harness provides two boards', () => {
  assert.ok(DEVICES.length >= 2,
    'LABGATE_PTY_DEVICES must name two pty devices: run this file through labgate-pty-run (ctest -R e2e.board_pty)');
});

async function bootAndLogIn(client, callOk, port) {
  const { session } = await callOk(client, 'create_session', { device_id: 'board' });
  await callOk(client, 'open_port', { port_name: port, baud_rate: 115200, terminator: '\n', session_id: session.id });

  // 1. Reset the board.
  const pulsed = await callOk(client, 'pulse_signal', { port_name: port, signal: 'dtr', level: false, ms: 100 });
  assert.equal(pulsed.dtr, true, 'DTR is back up after the pulse');
  // 2. Wait for its login prompt: the banner comes first, with nothing read in between.
  const prompt = await callOk(client, 'wait_for', { port_name: port, patterns: ['login: $', 'Kernel panic'], timeout_ms: 5000 });
  assert.equal(prompt.matched, true, JSON.stringify(prompt));
  assert.equal(prompt.pattern_index, 0);
  assert.equal(prompt.before, `${BANNER}labgate-sim `);
  // 3. Log in.
  const login = await callOk(client, 'send_expect', {
    port_name: port,
    steps: [
      { send: 'root' },
      { expect: ['Password: '], timeout_ms: 3000 },
      { send: 'labgate' },
      { expect: ['(\\w+)@([\\w-]+):~# '], timeout_ms: 3000 },
    ],
  });
  assert.equal(login.completed, true, JSON.stringify(login));
  assert.equal(login.failed_step, -1);
  assert.deepEqual(login.steps.map((s) => s.kind), ['send', 'expect', 'send', 'expect']);
  assert.equal(login.steps[3].match, SHELL_PROMPT);
  assert.deepEqual(login.steps[3].groups, ['root', 'labgate-sim']);

  // The transcript has the reset, every byte received and sent, in order, each with its time.
  const expected = [
    ['event', 'DTR low for 100 ms'],
    ['rx', `${BANNER}labgate-sim login: `],
    ['tx', 'root\n'],
    ['rx', 'Password: '],
    ['tx', 'labgate\n'],
    ['rx', `\r\nWelcome to labgate-sim\r\n${SHELL_PROMPT}`],
  ];
  const messages = await eventually(async () => {
    const { messages: all } = await callOk(client, 'list_messages', { session_id: session.id });
    const io = all.filter((m) => m.direction !== 'event' || m.content.startsWith('DTR'));
    return io.filter((m) => m.direction === 'rx').map((m) => m.content).join('').endsWith(SHELL_PROMPT) ? all : null;
  }, 'the shell prompt in the transcript');
  const io = messages.filter((m) => m.direction !== 'event' || m.content.startsWith('DTR'));
  // rx may be recorded in several pieces (the banner arrives in two): join neighbours.
  const joined = [];
  for (const m of io) {
    const last = joined[joined.length - 1];
    if (last && last[0] === m.direction && m.direction === 'rx') last[1] += m.content;
    else joined.push([m.direction, m.content]);
  }
  assert.deepEqual(joined, expected);
  let previous = '';
  for (const m of io) {
    assert.match(m.occurred_at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, `${m.direction} ${JSON.stringify(m.content)} has its time`);
    assert.ok(m.occurred_at >= previous, 'times run forward');
    previous = m.occurred_at;
  }
  await callOk(client, 'close', { port_name: port });
}

test('v1 client (2025-11-25): reset, wait for the prompt and log in, in three calls', async () => {
  const gateway = await embeddedGateway();
  try {
    await bootAndLogIn(gateway.client, callOkV1, DEVICES[0]);
  } finally {
    await gateway.close();
  }
});

test('v2 client (2026-07-28): reset, wait for the prompt and log in, in three calls', async () => {
  const connection = await connectV2Stdio();
  try {
    assert.equal(connection.client.getNegotiatedProtocolVersion(), '2026-07-28');
    await bootAndLogIn(connection.client, callOkV2, DEVICES[1]);
  } finally {
    await connection.close();
  }
});
