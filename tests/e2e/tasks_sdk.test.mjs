// labgate's long calls as MCP tasks through the tasks extension's own client
// (@modelcontextprotocol/ext-tasks on the v2 SDK client, 2026-07-28 over Streamable HTTP):
// a long wait_for runs as a task and settles with the synchronous call's shape; a script a
// confirm rule holds asks the person through the task, and the answer (tasks/update) lets it
// go on or refuses it; a cancelled send_expect stops between its steps and frees the port; a
// replay at real speed waits as a task for its recorded reply; a reserve waiting in the queue
// shows its place as the task's statusMessage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { startHttpGateway } from './lib/http_gateway.mjs';
import { connectV2Http, parseBody, MODERN, callOk } from './lib/v2_client.mjs';
import { tempDir, removeDir } from './lib/harness.mjs';
import { startBenchGateway } from './lib/bench_gateway.mjs';

const TASKS = 'io.modelcontextprotocol/tasks';
const CAPABILITIES = { elicitation: {}, extensions: { [TASKS]: {} } };

// The extension's client sends tools/call and tasks/* itself (the SDK's codecs do not carry
// the task shapes): each is one stateless POST with the 2026 headers.
function rawDispatchTo(url, headers = {}) {
  let nextId = 0;
  return async (request, { signal } = {}) => {
    const id = `ext-${++nextId}`;
    const name = request.params?.name ?? request.params?.taskId;
    const response = await fetch(url, {
      method: 'POST',
      signal,
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': MODERN,
        'Mcp-Method': request.method,
        ...(name === undefined ? {} : { 'Mcp-Name': name }),
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, ...request }),
    });
    const message = parseBody(response.headers.get('content-type'), await response.text())
      .find((m) => m.id === id);
    if (message === undefined) throw new Error(`no answer to ${request.method} (HTTP ${response.status})`);
    return message.error ? { kind: 'error', error: message.error } : { kind: 'result', result: message.result };
  };
}

// A v2 client with the extension's session on top; `answer` handles the person's questions.
async function taskSession(url, { answer, headers = {} } = {}) {
  const v2 = await connectV2Http(url, { capabilities: CAPABILITIES, headers });
  const asked = [];
  const session = createTaskSessionFromClient(v2.client, {
    endpointId: 'labgate-e2e',
    rawDispatch: rawDispatchTo(url, headers),
    v2RequestFraming: { protocolVersion: MODERN, clientInfo: { name: 'labgate-ext-tasks-e2e', version: '1' },
      clientCapabilities: CAPABILITIES },
    onInputRequest: async (request, context) => {
      asked.push({ request, context });
      if (!answer) throw new Error(`unexpected question: ${JSON.stringify(request)}`);
      return answer(request, context);
    },
  });
  return {
    client: v2.client, session, asked,
    async close() { await session.close(); await v2.close(); },
  };
}

// Runs a tool through the extension; returns { execution, outcome, events }.
async function runTool(session, name, args) {
  const execution = await session.callTool(name, args);
  const events = [];
  const { outcome } = await execution.settle({ onEvent: (event) => { events.push(event); } });
  return { execution, outcome, events };
}

const statuses = (events) => events.filter((e) => e.type === 'task').map((e) => e.task.status);

test('a long wait_for runs as a task through the extension client and settles with the synchronous shape', async () => {
  const gateway = await startHttpGateway([]);
  const { session, client, close } = await taskSession(gateway.url);
  const plain = await connectV2Http(gateway.url);  // declares no tasks: its calls stay synchronous
  try {
    assert.equal(session.capabilities.execution, true);
    assert.equal(session.capabilities.cancellation, true);
    assert.equal(session.capabilities.inputResponses, true);
    await callOk(client, 'open_port', { port_name: 'loop://sdk', baud_rate: 115200 });
    await callOk(client, 'write', { port_name: 'loop://sdk', data: 'lab-board login: ' });
    const args = { port_name: 'loop://sdk', patterns: ['(\\w+) login: '], timeout_ms: 8000 };
    const { execution, outcome, events } = await runTool(session, 'wait_for', args);
    assert.equal(execution.kind, 'task', 'past the 5 s threshold the call is a task');
    assert.match(execution.handle.taskId, /^[0-9a-f-]{36}$/);
    assert.equal(outcome.status, 'completed');
    assert.equal(statuses(events).at(-1), 'completed');
    const asTask = resultFromTaskOutcome(outcome);

    await callOk(client, 'write', { port_name: 'loop://sdk', data: 'lab-board login: ' });
    const inline = await plain.client.callTool({ name: 'wait_for', arguments: args });
    const shape = ({ latency_ms: _, ...rest }) => rest;
    assert.deepEqual(shape(asTask.structuredContent), shape(inline.structuredContent));
    assert.deepEqual(asTask.structuredContent.groups, ['board']);
    assert.equal(asTask.isError, false);
    assert.equal(JSON.parse(asTask.content[0].text).match, 'board login: ');

    // A short call stays synchronous (an immediate execution), whatever the client declares.
    await callOk(client, 'write', { port_name: 'loop://sdk', data: 'OK' });
    const quick = await session.callTool('wait_for', { port_name: 'loop://sdk', patterns: ['OK'], timeout_ms: 1000 });
    assert.equal(quick.kind, 'immediate');
    const { outcome: quickOutcome } = await quick.settle();
    assert.equal(resultFromTaskOutcome(quickOutcome).structuredContent.matched, true);
  } finally {
    await plain.close();
    await close();
    await gateway.stop();
  }
});

test('a cancelled send_expect stops between its steps, and the port is free at once', async () => {
  const gateway = await startHttpGateway([]);
  const { session, client, close } = await taskSession(gateway.url);
  try {
    await callOk(client, 'open_port', { port_name: 'loop://script', baud_rate: 115200 });
    const execution = await session.callTool('send_expect', { port_name: 'loop://script',
      steps: [{ send: 'hello' }, { expect: ['never'], timeout_ms: 30000 }, { send: 'after the wait' }] });
    assert.equal(execution.kind, 'task');
    const settled = execution.settle();
    // Cancel once the script has sent its first step and waits on its second.
    let written = 0;
    for (let i = 0; i < 500 && written < 5; i++) {
      written = (await callOk(client, 'metrics', { port_name: 'loop://script' })).bytes_written_total;
      if (written < 5) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(written, 5, 'the first step went out');
    await execution.cancel();
    const { outcome } = await settled;
    assert.equal(outcome.status, 'cancelled');
    assert.equal((await session.task(execution.handle.taskId).snapshot()).status, 'cancelled');

    const started = Date.now();
    await callOk(client, 'write', { port_name: 'loop://script', data: 'again' });
    const read = await callOk(client, 'read', { port_name: 'loop://script', timeout_ms: 300 });
    // The first step's bytes are still unread; the step after the cancelled wait was never sent.
    assert.equal(read.data, 'helloagain');
    assert.ok(Date.now() - started < 5000, 'the cancelled script no longer holds the port');
  } finally {
    await close();
    await gateway.stop();
  }
});

test('a script a confirm rule holds asks through its task; the answer lets it run or refuses it', async () => {
  const dir = tempDir('labgate-ext-tasks-');
  writeFileSync(join(dir, 'policy.json'), JSON.stringify({
    ports: [{ match: 'loop://*', confirm: [{ name: 'output-on', pattern: '^OUTP(UT)? ON' }] }],
  }));
  const gateway = await startHttpGateway(['--policy', join(dir, 'policy.json')]);
  let approve = true;
  const { session, client, asked, close } = await taskSession(gateway.url, {
    answer: () => (approve ? { action: 'accept', content: { approve: true } } : { action: 'decline' }),
  });
  try {
    await callOk(client, 'open_port', { port_name: 'loop://psu', baud_rate: 9600 });
    const script = (data) => ({ port_name: 'loop://psu', steps: [{ send: data }, { expect: [data], timeout_ms: 6000 }] });

    const approved = await runTool(session, 'send_expect', script('OUTP ON'));
    assert.equal(approved.execution.kind, 'task');
    assert.ok(statuses(approved.events).includes('input_required'), JSON.stringify(statuses(approved.events)));
    assert.equal(asked.length, 1);
    assert.equal(asked[0].request.kind, 'elicitation');
    assert.match(asked[0].request.params.message, /output-on/);
    assert.equal(asked[0].context.scope, 'task');
    assert.equal(asked[0].context.delivery, 'task-update');
    assert.equal(asked[0].context.taskId, approved.execution.handle.taskId);
    const ran = resultFromTaskOutcome(approved.outcome);
    assert.equal(ran.isError, false, JSON.stringify(ran));
    assert.equal(ran.structuredContent.completed, true);

    approve = false;
    const declined = await runTool(session, 'send_expect', script('OUTPUT ON'));
    assert.equal(asked.length, 2);
    assert.equal(declined.outcome.status, 'completed', 'a refused write is the tool\'s error, not a failed task');
    const refused = resultFromTaskOutcome(declined.outcome);
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text, /output-on|declined|not approved/i);
    const read = await callOk(client, 'read', { port_name: 'loop://psu', timeout_ms: 200 });
    assert.equal(read.data, '', 'nothing of the refused script reached the port');
  } finally {
    await close();
    await gateway.stop();
    removeDir(dir);
  }
});

test('a replay at real speed waits for its recorded reply as a task', async () => {
  const gateway = await startHttpGateway([]);
  const { session, client, close } = await taskSession(gateway.url);
  try {
    // A recorded exchange whose reply came 6 s after the command.
    const start = Date.parse('2026-11-01T10:00:00.000Z');
    const at = (ms) => new Date(start + ms).toISOString();
    const imported = await callOk(client, 'import_session', { export: {
      session: { device_id: 'PSU-slow' },
      messages: [
        { role: 'user', direction: 'tx', content: 'MEAS:VOLT?\n', occurred_at: at(0) },
        { role: 'assistant', direction: 'rx', content: '3.300\n', occurred_at: at(6000) },
      ] } });
    const port = `replay://${imported.session.id}?speed=1`;
    await callOk(client, 'open_port', { port_name: port, baud_rate: 9600 });
    const sent = Date.now();
    await callOk(client, 'write', { port_name: port, data: 'MEAS:VOLT?\n' });
    const { execution, outcome, events } = await runTool(session, 'wait_for',
      { port_name: port, patterns: ['(\\d+\\.\\d+)'], timeout_ms: 20000 });
    assert.equal(execution.kind, 'task');
    assert.ok(statuses(events).includes('working'));
    const waited = resultFromTaskOutcome(outcome).structuredContent;
    assert.equal(waited.matched, true, JSON.stringify(waited));
    assert.deepEqual(waited.groups, ['3.300']);
    assert.ok(Date.now() - sent >= 5500, 'the reply came at the recorded pace, not at once');
    const status = await callOk(client, 'replay_status', { port_name: port });
    assert.equal(status.matched, 1);
    assert.equal(status.rx_played, 1);
  } finally {
    await close();
    await gateway.stop();
  }
});

test('a reserve that waits in the queue runs as a task whose statusMessage is its place', async () => {
  const bench = await startBenchGateway(['alice', 'bob']);
  const { gateway } = bench;
  const alice = await connectV2Http(gateway.url, { headers: { Authorization: 'Bearer alice-token-1' } });
  const bob = await taskSession(gateway.url, { headers: { Authorization: 'Bearer bob-token-2' } });
  try {
    let held;
    for (let i = 0; i < 200 && held?.state !== 'granted'; i++) {
      const result = await alice.client.callTool({ name: 'reserve', arguments: { targets: ['psu-1'] } });
      held = result.isError ? undefined : result.structuredContent;
      if (held?.state !== 'granted') await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(held?.state, 'granted', 'alice holds psu-1');

    const execution = await bob.session.callTool('reserve', { targets: ['psu-1'], wait_s: 60 });
    assert.equal(execution.kind, 'task');
    const settled = execution.settle();
    const task = bob.session.task(execution.handle.taskId);
    let seen;
    // The first message is stored at once, later ones with a heartbeat (every 2 s).
    for (let i = 0; i < 600; i++) {
      seen = await task.snapshot();
      if (seen.statusMessage === 'waiting: 1st in the queue for psu-1') break;
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(seen.status, 'working');
    assert.equal(seen.statusMessage, 'waiting: 1st in the queue for psu-1');

    await callOk(alice.client, 'release_reservation', { id: held.id });
    const { outcome } = await settled;
    const granted = resultFromTaskOutcome(outcome).structuredContent;
    assert.equal(granted.state, 'granted');
    assert.equal(granted.holder, 'http:bob');
    assert.equal(outcome.task?.statusMessage, undefined, 'a completed task shows its result, not its wait');
  } finally {
    await alice.close();
    await bob.close();
    await bench.stop();
  }
});
