// The safety policy through MCP: the official SDK client's elicitation handler answers
// labgate's confirmation requests. Embedded, `labgate --policy` enforces it and records the
// port's I/O and every decision in process; split (LABGATE_E2E_SPLIT=1), labgate-serial runs
// standalone with --policy and records into a labgate-session, and labgate calls both. The
// assertions are the same.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { BIN, SPLIT, startService, connectStdio, callOk, tempDir, removeDir } from './lib/harness.mjs';
import { callError, eventually } from './lib/serial_helpers.mjs';

const POLICY = {
  ports: [
    { match: 'loop://meter', read_only: true },
    { match: 'loop://locked', allow: false },
    {
      match: 'loop://board*', signals: 'confirm',
      sequences: {
        reset: { steps: [{ signal: 'dtr', level: false, ms: 20 }, { delay_ms: 5 }], signals: 'allow' },
        bootloader: { steps: [{ signal: 'rts', level: false }, { signal: 'dtr', level: false, ms: 20 }, { signal: 'rts', level: true }] },
      },
    },
    {
      match: 'loop://*', max_baud: 115200, max_writes_per_s: 20,
      deny: [{ name: 'no-reset', pattern: '^\\*RST' }],
      confirm: [{ name: 'output-on', pattern: '^OUTP(UT)? ON' }],
    },
  ],
};

// A supply whose current above 0.5 A needs a person, on a loopback standing in for it.
const SUPPLY = {
  model: 'LOOP-PSU',
  settings: { baud_rate: 9600, terminator: '\n', timeout_ms: 200 },
  quantities: { current: { unit: 'A', headers: ['[SOURce#:]CURRent[:LEVel]'] } },
  limits: [{ name: 'max-current', quantity: 'current', max: 1, confirm_above: 0.5 }],
};

let dir; let policyFile; let secretFile; let session; let serial; let instrumentArgs;

before(async () => {
  dir = tempDir('labgate-policy-e2e-');
  policyFile = join(dir, 'policy.json');
  secretFile = join(dir, 'secret');
  writeFileSync(policyFile, JSON.stringify(POLICY));
  writeFileSync(secretFile, 'e2e-confirmation-secret\n');
  mkdirSync(join(dir, 'profiles'));
  writeFileSync(join(dir, 'profiles', 'psu.json'), JSON.stringify(SUPPLY));
  writeFileSync(join(dir, 'instruments.json'), JSON.stringify({
    instruments: [{ name: 'psu-9', profile: 'LOOP-PSU', match: { port_name: 'loop://psu-9' } }],
  }));
  instrumentArgs = ['--profiles', join(dir, 'profiles'), '--instruments', join(dir, 'instruments.json')];
  if (!SPLIT) return;
  session = await startService(BIN.session, ['--data-dir', join(dir, 'data')]);
  serial = await startService(BIN.serial, ['--policy', policyFile, '--confirm-secret-file', secretFile,
    '--session-addr', session.address, ...instrumentArgs]);
});

after(async () => {
  await serial?.stop();
  await session?.stop();
  removeDir(dir);
});

// A gateway whose client answers elicitation/create with `answer` (or lacks the
// capability when `answer` is null); the questions it got are in `asked`.
async function gateway(answer) {
  const asked = [];
  const options = { env: { LABGATE_CONFIRM_SECRET_FILE: secretFile } };
  if (answer !== null) {
    options.capabilities = { elicitation: {} };
    options.setup = (client) => client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return answer;
    });
  }
  const args = SPLIT ? ['--serial-addr', serial.address, '--session-addr', session.address]
    : ['--policy', policyFile, '--data-dir', join(dir, 'data'), ...instrumentArgs];
  const connection = await connectStdio(args, options);
  return { ...connection, asked };
}

// SIGHUP to whichever process enforces the policy.
function reloadPolicy(transport) {
  if (SPLIT) serial.child.kill('SIGHUP');
  else process.kill(transport.pid, 'SIGHUP');
}

// Opens `port` bound to a fresh session; returns the session id.
async function openRecorded(client, port) {
  const created = await callOk(client, 'create_session', { device_id: 'psu' });
  const sessionId = created.session.id;
  await callOk(client, 'open_port', { port_name: port, baud_rate: 9600, terminator: '\n', timeout_ms: 200, session_id: sessionId });
  return sessionId;
}

async function transcript(client, sessionId, count) {
  return eventually(async () => {
    const listed = await callOk(client, 'list_messages', { session_id: sessionId });
    return listed.messages.length >= count ? listed.messages : null;
  }, `${count} messages in ${sessionId}`);
}

// What the loopback got (and so would have reached an instrument).
async function written(client, port) {
  const read = await callOk(client, 'read', { port_name: port, timeout_ms: 50 });
  return read.data;
}

test('accept: the person approves, the write goes through, and the record says so', async () => {
  const { client, asked } = await gateway({ action: 'accept', content: { approve: true } });
  try {
    const sessionId = await openRecorded(client, 'loop://accept');
    const wrote = await callOk(client, 'write', { port_name: 'loop://accept', data: 'OUTP ON' });
    assert.equal(wrote.bytes_written, 8);
    assert.equal(asked.length, 1);
    assert.match(asked[0].message, /output-on/);
    assert.match(asked[0].message, /OUTP ON/);
    assert.equal(await written(client, 'loop://accept'), 'OUTP ON');
    const messages = await transcript(client, sessionId, 5);
    assert.match(messages[0].content, /^opened at 9600 baud/);
    assert.deepEqual(messages.map((m) => [m.direction, m.content]).slice(1, 5), [
      ['event', "confirmation required (rule 'output-on'): OUTP ON"],
      ['event', "write approved by the person at stdio's MCP client: OUTP ON"],
      ['tx', 'OUTP ON\n'],
      ['rx', 'OUTP ON\n'],
    ]);
  } finally {
    await client.close();
  }
});

test("an instrument's confirm_above asks the person with the value and the command; a decline sends nothing", async () => {
  for (const [answer, sent] of [[{ action: 'accept', content: { approve: true } }, true], [{ action: 'decline' }, false]]) {
    const { client, asked } = await gateway(answer);
    try {
      const opened = await callOk(client, 'open_port', { instrument: 'psu-9' });
      assert.equal(opened.device_path, 'loop://psu-9');
      await callOk(client, 'write', { port_name: 'psu-9', data: 'CURR 0.4' });
      assert.equal(asked.length, 0, 'within the limit nobody is asked');
      assert.equal(await written(client, 'psu-9'), 'CURR 0.4');
      if (sent) {
        await callOk(client, 'write', { port_name: 'psu-9', data: 'CURR 0.8' });
        assert.equal(await written(client, 'psu-9'), 'CURR 0.8');
      } else {
        assert.match(await callError(client, 'write', { port_name: 'psu-9', data: 'CURR 0.8' }),
          /not sent: the instrument's limit 'max-current' needs a person's approval, and the person declined it/);
        assert.equal(await written(client, 'psu-9'), '', 'nothing was sent');
      }
      assert.equal(asked.length, 1);
      assert.match(asked[0].message, /max-current/);
      assert.match(asked[0].message, /CURR 0\.8/);
      assert.match(asked[0].message, /0\.8 A is above max-current \(0\.5 A\) on psu-9 channel 1/);
      // Over max no one is asked: refused outright.
      assert.match(await callError(client, 'write', { port_name: 'psu-9', data: 'CURR 2' }),
        /2 A exceeds max-current \(1 A\) on psu-9 channel 1/);
      assert.equal(asked.length, 1);
    } finally {
      await client.close();
    }
  }
});

test('send_expect: the person sees the whole script and approves it; it runs once, in order', async () => {
  const { client, asked } = await gateway({ action: 'accept', content: { approve: true } });
  try {
    await openRecorded(client, 'loop://script');
    const ran = await callOk(client, 'send_expect', {
      port_name: 'loop://script',
      steps: [{ send: 'VOLT 5' }, { expect: ['VOLT 5'], timeout_ms: 1000 }, { send: 'OUTP ON' },
        { expect: ['OUTP ON'], timeout_ms: 1000 }],
    });
    assert.equal(ran.completed, true);
    assert.equal(ran.failed_step, -1);
    assert.equal(ran.steps.length, 4);
    assert.equal(asked.length, 1, 'asked once, before anything ran');
    assert.match(asked[0].message, /output-on/);
    assert.match(asked[0].message, /send VOLT 5\n\s+expect \["VOLT 5"\]\n\s+send OUTP ON/);
    // A deny rule anywhere refuses the whole script: nothing is sent.
    const refused = await callError(client, 'send_expect', {
      port_name: 'loop://script', steps: [{ send: 'VOLT 1' }, { send: '*RST' }],
    });
    assert.match(refused, /no-reset/);
    assert.equal(await written(client, 'loop://script'), '');
  } finally {
    await client.close();
  }
});

test('control lines under "signals": "confirm": the person approves each change; a named sequence may carry its own rule', async () => {
  const { client, asked } = await gateway({ action: 'accept', content: { approve: true } });
  try {
    const sessionId = await openRecorded(client, 'loop://board-accept');
    const before = await callOk(client, 'get_signals', { port_name: 'loop://board-accept' });
    assert.equal(asked.length, 0, 'reading the lines needs no approval');
    const pulsed = await callOk(client, 'pulse_signal', { port_name: 'loop://board-accept', signal: 'dtr', level: false, ms: 100 });
    assert.equal(pulsed.dtr, before.dtr, 'DTR is back where it was');
    assert.equal(asked.length, 1);
    assert.match(asked[0].message, /rule 'signals'/);
    assert.match(asked[0].message, /pulse_signal on loop:\/\/board-accept:\n\n\s+DTR low for 100 ms/);

    // The operator's reset sequence is allowed outright; the bootloader one asks, showing its steps.
    const reset = await callOk(client, 'run_sequence', { port_name: 'loop://board-accept', name: 'reset' });
    assert.equal(reset.completed, true);
    assert.deepEqual(reset.steps.map((s) => s.kind), ['signal', 'delay']);
    assert.equal(asked.length, 1, 'reset was not asked about');
    const boot = await callOk(client, 'run_sequence', { port_name: 'loop://board-accept', name: 'bootloader' });
    assert.equal(boot.steps.length, 3);
    assert.equal(asked.length, 2);
    assert.match(asked[1].message, /rule 'sequence bootloader'/);
    assert.match(asked[1].message, /sequence 'bootloader' \(RTS low; DTR low for 20 ms; RTS high\)/);
    assert.match(await callError(client, 'run_sequence', { port_name: 'loop://board-accept', name: 'flash' }),
      /no sequence 'flash'.*it has: bootloader, reset/);

    const status = await callOk(client, 'status', { port_name: 'loop://board-accept' });
    assert.equal(status.policy.signals, 'confirm');
    assert.deepEqual(status.policy.sequences.map((q) => [q.name, q.signals]), [['bootloader', 'confirm'], ['reset', 'allow']]);

    const messages = await transcript(client, sessionId, 4);
    assert.deepEqual(messages.map((m) => [m.direction, m.content]).slice(1, 4), [
      ['event', 'confirmation required (signals): pulse_signal DTR low for 100 ms'],
      ['event', "pulse_signal approved by the person at stdio's MCP client: DTR low for 100 ms"],
      ['event', 'DTR low for 100 ms'],
    ]);
  } finally {
    await client.close();
  }
  // Declined: the line does not move, and the refusal says so.
  const declining = await gateway({ action: 'decline' });
  try {
    await openRecorded(declining.client, 'loop://board-decline');
    const before = await callOk(declining.client, 'get_signals', { port_name: 'loop://board-decline' });
    const refused = await callError(declining.client, 'set_signals', { port_name: 'loop://board-decline', dtr: !before.dtr });
    assert.match(refused, /not done: the safety policy's rule 'signals' needs a person's approval, and the person declined it/);
    assert.match(declining.asked[0].message, before.dtr ? /DTR low/ : /DTR high/);
    const lines = await callOk(declining.client, 'get_signals', { port_name: 'loop://board-decline' });
    assert.equal(lines.dtr, before.dtr, 'DTR did not move');
  } finally {
    await declining.client.close();
  }
});

test('decline: nothing is written, the refusal explains, and the decline is recorded', async () => {
  const { client, asked } = await gateway({ action: 'decline' });
  try {
    const sessionId = await openRecorded(client, 'loop://decline');
    const text = await callError(client, 'write', { port_name: 'loop://decline', data: 'OUTP ON' });
    assert.match(text, /FAILED_PRECONDITION/);
    assert.match(text, /declined/);
    assert.match(text, /output-on/);
    assert.equal(asked.length, 1);
    assert.equal(await written(client, 'loop://decline'), '');
    const messages = await transcript(client, sessionId, 3);
    assert.deepEqual(messages.slice(1, 3).map((m) => m.content), [
      "confirmation required (rule 'output-on'): OUTP ON",
      "write not approved (decline by the person at stdio's MCP client): OUTP ON",
    ]);
    // A query is a write too.
    const query = await callError(client, 'query', { port_name: 'loop://decline', data: 'OUTPUT ON' });
    assert.match(query, /declined/);
  } finally {
    await client.close();
  }
});

test('a client without elicitation is refused with the reason, and nothing is written', async () => {
  const { client } = await gateway(null);
  try {
    await callOk(client, 'open_port', { port_name: 'loop://noelicit', baud_rate: 9600, terminator: '\n', timeout_ms: 200 });
    const text = await callError(client, 'write', { port_name: 'loop://noelicit', data: 'OUTP ON' });
    assert.match(text, /does not support elicitation/);
    assert.equal(await written(client, 'loop://noelicit'), '');
    // Writes no rule asks about need nobody.
    await callOk(client, 'write', { port_name: 'loop://noelicit', data: 'VOLT 5' });
  } finally {
    await client.close();
  }
});

test('deny rules, read-only ports, allow and max_baud refuse by name; tool hints are truthful', async () => {
  const { client, asked } = await gateway({ action: 'accept', content: { approve: true } });
  try {
    const { tools } = await client.listTools();
    for (const name of ['write', 'query']) {
      const tool = tools.find((t) => t.name === name);
      assert.equal(tool.annotations.readOnlyHint ?? false, false, `${name} is not read-only`);
      assert.equal(tool.annotations.destructiveHint, true, `${name} may be destructive`);
    }
    await callOk(client, 'open_port', { port_name: 'loop://deny', baud_rate: 9600, terminator: '\n' });
    assert.match(await callError(client, 'write', { port_name: 'loop://deny', data: '*RST' }), /PERMISSION_DENIED.*'no-reset'/);
    await callOk(client, 'open_port', { port_name: 'loop://meter', baud_rate: 9600 });
    assert.match(await callError(client, 'write', { port_name: 'loop://meter', data: 'x' }), /read-only/);
    assert.match(await callError(client, 'open_port', { port_name: 'loop://locked', baud_rate: 9600 }), /not allowed/);
    assert.match(await callError(client, 'open_port', { port_name: 'loop://fast', baud_rate: 230400 }), /max_baud 115200/);
    assert.equal(asked.length, 0, 'refusals ask nobody');
  } finally {
    await client.close();
  }
});

test('rate limit: writes beyond max_writes_per_s are RESOURCE_EXHAUSTED', async () => {
  const { client } = await gateway(null);
  try {
    await callOk(client, 'open_port', { port_name: 'loop://rate', baud_rate: 9600 });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) =>
      client.callTool({ name: 'write', arguments: { port_name: 'loop://rate', data: `V${i}` } })));
    const refused = results.filter((r) => r.isError);
    assert.ok(refused.length >= 20, `at most 20 of 40 writes in a burst pass (refused ${refused.length})`);
    for (const r of refused) assert.match(r.content[0].text, /RESOURCE_EXHAUSTED.*20 writes per second/);
  } finally {
    await client.close();
  }
});

test('SIGHUP reloads the policy file', async () => {
  const { client, transport } = await gateway(null);
  try {
    await callOk(client, 'open_port', { port_name: 'loop://reload', baud_rate: 9600 });
    assert.match(await callError(client, 'write', { port_name: 'loop://reload', data: 'OUTP ON' }), /elicitation/);
    writeFileSync(policyFile, JSON.stringify({ ports: [{ match: 'loop://*' }] }));
    reloadPolicy(transport);
    await eventually(async () => {
      const r = await client.callTool({ name: 'write', arguments: { port_name: 'loop://reload', data: 'OUTP ON' } });
      return !r.isError;
    }, 'the reloaded policy');
  } finally {
    writeFileSync(policyFile, JSON.stringify(POLICY));
    reloadPolicy(transport);
    await client.close();
  }
});

test('SIGHUP reloads the instruments: a bad file leaves the old ones, a good one takes over', async () => {
  const { client, transport } = await gateway(null);
  const instrumentsFile = join(dir, 'instruments.json');
  const original = JSON.stringify({
    instruments: [{ name: 'psu-9', profile: 'LOOP-PSU', match: { port_name: 'loop://psu-9' } }],
  });
  const names = async () => (await callOk(client, 'list_instruments', {})).instruments.map((i) => i.name);
  try {
    assert.deepEqual(await names(), ['psu-9']);
    // An unknown key, and two instruments on one port: neither loads.
    for (const bad of [
      { instruments: [{ name: 'psu-9', profile: 'LOOP-PSU', match: { port_name: 'loop://psu-9' }, colour: 'red' }] },
      { instruments: [{ name: 'a', profile: 'LOOP-PSU', match: { port_name: 'loop://x' } },
        { name: 'b', profile: 'LOOP-PSU', match: { port_name: 'loop://x' } }] },
    ]) {
      writeFileSync(instrumentsFile, JSON.stringify(bad));
      reloadPolicy(transport);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(await names(), ['psu-9'], 'the old instruments stay in force');
      await callOk(client, 'open_port', { instrument: 'psu-9' });
      assert.match(await callError(client, 'write', { port_name: 'psu-9', data: 'CURR 2' }), /exceeds max-current/);
      await callOk(client, 'close', { port_name: 'psu-9' });
    }
    writeFileSync(instrumentsFile, JSON.stringify({
      instruments: [{ name: 'psu-10', profile: 'LOOP-PSU', match: { port_name: 'loop://psu-10' } }],
    }));
    reloadPolicy(transport);
    await eventually(async () => (await names()).includes('psu-10'), 'the reloaded instruments');
    assert.deepEqual(await names(), ['psu-10']);
  } finally {
    writeFileSync(instrumentsFile, original);
    reloadPolicy(transport);
    await client.close();
  }
});
