// labgate's own long calls as MCP tasks (issue 34), raw JSON-RPC on the 2026-07-28 wire over
// Streamable HTTP, on a loopback port: a wait_for with a long timeout becomes a task whose
// result has the synchronous call's shape; a short one stays synchronous; a send_expect script
// cancelled through tasks/cancel stops, and the port is free at once; a script a confirm rule
// holds waits in input_required until tasks/update approves or declines it, or the console
// approves it; tools/list says which
// tools may become tasks; the console lists them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startHttpGateway, post } from './lib/http_gateway.mjs';
import { tempDir, removeDir } from './lib/harness.mjs';

const TASKS = 'io.modelcontextprotocol/tasks';
const capabilities = (withTasks) => (withTasks ? { elicitation: {}, extensions: { [TASKS]: {} } } : {});
let nextId = 1;

async function call(url, method, params, { withTasks = true } = {}) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': capabilities(withTasks),
  };
  const headers = { 'Mcp-Method': method };
  const name = params.name ?? params.taskId;
  if (name !== undefined) headers['Mcp-Name'] = name;
  const answer = await post(url, JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta } }),
    { version: '2026-07-28', headers });
  assert.ok(answer.json?.result, answer.text);
  return answer.json.result;
}

const tool = (url, name, args, options) => call(url, 'tools/call', { name, arguments: args }, options);

async function settle(url, taskId) {
  for (let i = 0; i < 200; i++) {
    const task = await call(url, 'tasks/get', { taskId });
    if (['completed', 'failed', 'cancelled'].includes(task.status)) return task;
    await sleep(50);
  }
  assert.fail(`task ${taskId} did not finish`);
}

test('long serial calls become tasks with the synchronous result; a cancelled script frees the port', async () => {
  const gateway = await startHttpGateway([]);
  try {
    const { url } = gateway;
    const { tools } = await call(url, 'tools/list', {});
    const execution = Object.fromEntries(tools.filter((t) => t.execution).map((t) => [t.name, t.execution.taskSupport]));
    assert.deepEqual(execution, { read: 'optional', query: 'optional', wait_for: 'optional',
      send_expect: 'optional', reserve: 'optional', write: 'optional', set_signals: 'optional',
      pulse_signal: 'optional', send_break: 'optional', run_sequence: 'optional' });

    await tool(url, 'open_port', { port_name: 'loop://tasks', baud_rate: 115200 });
    // The same wait, as a task (timeout past the 5 s threshold) and synchronously.
    await tool(url, 'write', { port_name: 'loop://tasks', data: 'lab-board login: ' });
    const created = await tool(url, 'wait_for', { port_name: 'loop://tasks', patterns: ['(\\w+) login: '], timeout_ms: 8000 });
    assert.equal(created.resultType, 'task');
    assert.equal(created.status, 'working');
    const done = await settle(url, created.taskId);
    assert.equal(done.status, 'completed');
    await tool(url, 'write', { port_name: 'loop://tasks', data: 'lab-board login: ' });
    const inline = await tool(url, 'wait_for', { port_name: 'loop://tasks', patterns: ['(\\w+) login: '], timeout_ms: 8000 },
      { withTasks: false });
    assert.equal(inline.resultType, 'complete');
    const shape = ({ latency_ms: _, ...rest }) => rest;
    assert.deepEqual(shape(done.result.structuredContent), shape(inline.structuredContent));
    assert.deepEqual(done.result.structuredContent.groups, ['board']);
    // The task's result is the call's CallToolResult, resultType included (2026-07-28 requires it).
    assert.equal(done.result.resultType, 'complete');
    assert.deepEqual(Object.keys(done.result).sort(), Object.keys(inline).filter((k) => k !== '_meta').sort());
    // A short wait stays synchronous, whatever the client declares.
    await tool(url, 'write', { port_name: 'loop://tasks', data: 'OK' });
    const quick = await tool(url, 'wait_for', { port_name: 'loop://tasks', patterns: ['OK'], timeout_ms: 1000 });
    assert.equal(quick.resultType, 'complete');
    assert.equal(quick.structuredContent.matched, true);

    // A script that would wait 30 s, cancelled: it stops, and the port serves the next call.
    const script = await tool(url, 'send_expect', { port_name: 'loop://tasks',
      steps: [{ send: 'hello' }, { expect: ['never'], timeout_ms: 30000 }] });
    assert.equal(script.resultType, 'task');
    await sleep(200);
    assert.deepEqual((await call(url, 'tasks/cancel', { taskId: script.taskId })).resultType, 'complete');
    const cancelled = await settle(url, script.taskId);
    assert.equal(cancelled.status, 'cancelled');
    const started = Date.now();
    await tool(url, 'write', { port_name: 'loop://tasks', data: 'again' });
    const after = await tool(url, 'wait_for', { port_name: 'loop://tasks', patterns: ['again'], timeout_ms: 2000 });
    assert.equal(after.structuredContent.matched, true);
    assert.ok(Date.now() - started < 2000, 'the cancelled script no longer holds the port');

    // The console lists both tasks, newest first, with their state, owner and age.
    const listed = await fetch(url.replace('/mcp', '/console/api/tasks'));
    assert.equal(listed.status, 200);
    const { tasks: shown } = await listed.json();
    assert.deepEqual(shown.map((t) => [t.taskId, t.status, t.owner, t.description]), [
      [script.taskId, 'cancelled', 'http:local', 'tools/call send_expect'],
      [created.taskId, 'completed', 'http:local', 'tools/call wait_for'],
    ]);
    assert.ok(shown.every((t) => Number.isInteger(t.age_s) && t.age_s >= 0 && t.age_s < 60));
  } finally {
    await gateway.stop();
  }
});

test('a script held for approval waits in its task, and tasks/update lets it go on or stops it', async () => {
  const dir = tempDir('labgate-task-approval-');
  writeFileSync(join(dir, 'policy.json'), JSON.stringify({
    ports: [{ match: 'loop://*', confirm: [{ name: 'output-on', pattern: '^OUTP(UT)? ON' }] }],
  }));
  const gateway = await startHttpGateway(['--policy', join(dir, 'policy.json')]);
  try {
    const { url } = gateway;
    await tool(url, 'open_port', { port_name: 'loop://psu', baud_rate: 9600 });
    const script = (data) => ({ port_name: 'loop://psu',
      steps: [{ send: data }, { expect: [data], timeout_ms: 6000 }] });
    const waitForInput = async (taskId) => {
      for (let i = 0; i < 200; i++) {
        const task = await call(url, 'tasks/get', { taskId });
        if (task.status === 'input_required') return task;
        assert.equal(task.status, 'working');
        await sleep(25);
      }
      assert.fail(`task ${taskId} never asked`);
    };

    const approved = await tool(url, 'send_expect', script('OUTP ON'));
    assert.equal(approved.resultType, 'task');
    const asking = await waitForInput(approved.taskId);
    const [key, request] = Object.entries(asking.inputRequests)[0];
    assert.equal(request.method, 'elicitation/create');
    assert.match(request.params.message, /output-on/);
    await call(url, 'tasks/update', { taskId: approved.taskId,
      inputResponses: { [key]: { action: 'accept', content: { approve: true } } } });
    const ran = await settle(url, approved.taskId);
    assert.equal(ran.status, 'completed');
    assert.equal(ran.result.isError ?? false, false, JSON.stringify(ran.result));
    assert.equal(ran.result.structuredContent.completed, true);

    const declined = await tool(url, 'send_expect', script('OUTPUT ON'));
    const asked = await waitForInput(declined.taskId);
    const [declineKey] = Object.keys(asked.inputRequests);
    await call(url, 'tasks/update', { taskId: declined.taskId,
      inputResponses: { [declineKey]: { action: 'decline' } } });
    const refused = await settle(url, declined.taskId);
    assert.equal(refused.status, 'completed', 'a refused write is the tool\'s error, not a failed task');
    assert.equal(refused.result.isError, true);
    assert.match(refused.result.content[0].text, /output-on|declined|not approved/i);
    // Nothing of the refused script reached the port.
    const read = await tool(url, 'read', { port_name: 'loop://psu', timeout_ms: 200 });
    assert.equal(read.structuredContent.data, '');

    // The console's approval resolves the same task (the held script is on its board too).
    const fromConsole = await tool(url, 'send_expect', script('OUTP ON'));
    await waitForInput(fromConsole.taskId);
    const base = url.replace('/mcp', '');
    const { approvals } = await (await fetch(`${base}/console/api/approvals`)).json();
    assert.equal(approvals.length, 1, JSON.stringify(approvals));
    assert.equal(approvals[0].tool, 'send_expect');
    assert.match(approvals[0].shown, /^send OUTP ON/);
    const csrf = (await (await fetch(`${base}/console/api/whoami`)).json()).csrf;
    const answered = await fetch(`${base}/console/api/approvals/${approvals[0].id}/approve`,
      { method: 'POST', headers: { 'X-Labgate-Csrf': csrf } });
    assert.equal(answered.status, 200);
    const ranFromConsole = await settle(url, fromConsole.taskId);
    assert.equal(ranFromConsole.status, 'completed');
    assert.equal(ranFromConsole.result.structuredContent.completed, true, JSON.stringify(ranFromConsole.result));

    // A short write held for approval becomes a task too: the request answers at once.
    const write = await tool(url, 'write', { port_name: 'loop://psu', data: 'OUTP ON' });
    assert.equal(write.resultType, 'task', JSON.stringify(write));
    const question = await waitForInput(write.taskId);
    const [writeKey, writeRequest] = Object.entries(question.inputRequests)[0];
    assert.match(writeRequest.params.message, /output-on/);
    await call(url, 'tasks/update', { taskId: write.taskId,
      inputResponses: { [writeKey]: { action: 'accept', content: { approve: true } } } });
    const written = await settle(url, write.taskId);
    assert.equal(written.status, 'completed');
    assert.equal(written.result.structuredContent.bytes_written, 7, JSON.stringify(written.result));
    // A write no rule holds stays synchronous.
    const plain = await tool(url, 'write', { port_name: 'loop://psu', data: 'VOLT?' });
    assert.equal(plain.resultType, 'complete');
    assert.equal(plain.structuredContent.bytes_written, 5);
  } finally {
    await gateway.stop();
    removeDir(dir);
  }
});
