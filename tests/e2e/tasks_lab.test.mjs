// labgate's own long calls as MCP tasks (issue 34), raw JSON-RPC on the 2026-07-28 wire over
// Streamable HTTP, on a loopback port: a wait_for with a long timeout becomes a task whose
// result has the synchronous call's shape; a short one stays synchronous; a send_expect script
// cancelled through tasks/cancel stops, and the port is free at once; tools/list says which
// tools may become tasks; the console lists them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startHttpGateway, post } from './lib/http_gateway.mjs';

const TASKS = 'io.modelcontextprotocol/tasks';
const capabilities = (withTasks) => (withTasks ? { extensions: { [TASKS]: {} } } : {});
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
      send_expect: 'optional', reserve: 'optional' });

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
    assert.deepEqual(Object.keys(done.result).sort(), Object.keys(inline).filter((k) => !['resultType', '_meta'].includes(k)).sort());
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
