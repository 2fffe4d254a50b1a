// The notifications labgate advertises, in ordinary use, through the official v1 SDK
// client (stateful era) and the v2 client (2026-07-28 era) over stdio: MCP logging at the
// level the client chose (and nothing below it), resources/list_changed when a session is
// created or a port opened, and resources/updated for a subscribed labgate://ports/{name}.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  LoggingMessageNotificationSchema, ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { tempDir, removeDir, connectStdio, callOk } from './lib/harness.mjs';
import { connectV2Stdio, callOk as callOkV2, within } from './lib/v2_client.mjs';
import { startHttpGateway, connectHttp } from './lib/http_gateway.mjs';

const LOG_LEVEL_KEY = 'io.modelcontextprotocol/logLevel';
const LOOP = 'loop://';
const LOOP_URI = 'labgate://ports/loop:%2F%2F';
const WAIT_MS = 15000;

// Collects notifications of one kind; `next(pred)` waits for one (already seen or later).
function inbox() {
  const seen = [];
  const waiters = [];
  return {
    seen,
    push(params) {
      seen.push(params);
      for (const waiter of [...waiters]) {
        if (waiter.pred(params)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(params);
        }
      }
    },
    next(pred, what, from = 0) {
      const found = seen.slice(from).find(pred);
      if (found) return Promise.resolve(found);
      return within(new Promise((resolve) => waiters.push({ pred, resolve })), WAIT_MS, what);
    },
  };
}

const logEvent = (logger, event, level) => (p) =>
  p.logger === logger && p.data?.event === event && (level === undefined || p.level === level);

test('v1 client: logs at the level set, list_changed, port resource updates', async () => {
  const dataDir = tempDir();
  const logs = inbox();
  const listChanges = inbox();
  const updates = inbox();
  const { client } = await connectStdio(['--data-dir', dataDir], {
    setup(c) {
      c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));
      c.setNotificationHandler(ResourceListChangedNotificationSchema, () => listChanges.push({}));
      c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updates.push(n.params));
    },
  });
  try {
    assert.ok(client.getServerCapabilities().logging);
    assert.equal(client.getServerCapabilities().resources.listChanged, true);
    await client.setLoggingLevel('info');

    // A new session changes the resource list.
    let before = listChanges.seen.length;
    await callOk(client, 'create_session', { device_id: 'notify-v1' });
    await listChanges.next(() => true, 'list_changed after create_session', before);

    // Opening a port: an info log under "serial", and a list change.
    before = listChanges.seen.length;
    await callOk(client, 'open_port', { port_name: LOOP, baud_rate: 9600 });
    const opened = await logs.next(logEvent('serial', 'port_opened'), 'port_opened log');
    assert.equal(opened.level, 'info');
    assert.equal(opened.data.port_name, LOOP);
    await listChanges.next(() => true, 'list_changed after open_port', before);

    // A subscribed port hears that writes changed it.
    await client.subscribeResource({ uri: LOOP_URI });
    const updatesBefore = updates.seen.length;
    await callOk(client, 'write', { port_name: LOOP, data: '*IDN?' });
    const update = await updates.next((p) => p.uri === LOOP_URI, 'resources/updated for the port', updatesBefore);
    assert.equal(update.uri, LOOP_URI);
    const port = JSON.parse((await client.readResource({ uri: LOOP_URI })).contents[0].text);
    assert.ok(port, 'the updated port reads back');

    // A failed call logs an error under its component.
    const failed = await client.callTool({ name: 'open_port', arguments: { port_name: LOOP, baud_rate: 9600 } });
    assert.equal(failed.isError, true);
    const error = await logs.next(logEvent('serial', 'tool_failed'), 'tool_failed log');
    assert.equal(error.level, 'error');
    assert.equal(error.data.tool, 'open_port');
    assert.match(error.data.error, /ALREADY_EXISTS/);

    // At info, no backend call was logged at debug; at debug, each one is, with its duration.
    assert.ok(!logs.seen.some((p) => p.level === 'debug'), 'nothing below the level set');
    await client.setLoggingLevel('debug');
    const seenBefore = logs.seen.length;
    await callOk(client, 'status', { port_name: LOOP });
    const call = await logs.next(logEvent('serial', 'backend_call', 'debug'), 'backend_call log', seenBefore);
    assert.equal(call.data.tool, 'status');
    assert.equal(typeof call.data.duration_ms, 'number');
    assert.equal(call.data.status, 'OK');

    // Action tools log under "actions": a refused input is an error.
    const refused = await client.callTool({ name: 'supportive_reply', arguments: {} });
    assert.equal(refused.isError, true);
    const actionError = await logs.next(logEvent('actions', 'tool_failed', 'error'), 'actions tool_failed log');
    assert.equal(actionError.data.tool, 'supportive_reply');

    // Closing the port: info log and a list change.
    before = listChanges.seen.length;
    await callOk(client, 'close', { port_name: LOOP });
    const closed = await logs.next(logEvent('serial', 'port_closed'), 'port_closed log');
    assert.equal(closed.level, 'info');
    await listChanges.next(() => true, 'list_changed after close', before);

    // What happens to a port later reaches the session that opened it: an auto-close.
    await callOk(client, 'open_port', { port_name: 'loop://idle', baud_rate: 9600, idle_disconnect_ms: 50 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const idleRead = await callOk(client, 'read', { port_name: 'loop://idle', timeout_ms: 10 });
    assert.equal(idleRead.event, 'auto_close', JSON.stringify(idleRead));
    const autoClosed = await logs.next(logEvent('serial', 'port_auto_closed', 'info'), 'port_auto_closed log');
    assert.equal(autoClosed.data.port_name, 'loop://idle');
    assert.equal(autoClosed.data.reason, 'idle_timeout');

    // Above the level set, nothing: a warning level hides info and debug.
    await client.setLoggingLevel('warning');
    const quietFrom = logs.seen.length;
    await callOk(client, 'open_port', { port_name: LOOP, baud_rate: 9600 });
    await callOk(client, 'close', { port_name: LOOP });
    assert.deepEqual(logs.seen.slice(quietFrom), [], 'no info or debug logs at warning');
  } finally {
    await client.close();
    removeDir(dataDir);
  }
});

test('v2 client: logs only with _meta logLevel, list_changed and port updates through listen', async () => {
  const logs = inbox();
  const listChanges = inbox();
  const updates = inbox();
  const conn = await connectV2Stdio([], {
    setup(c) {
      c.setNotificationHandler('notifications/message', (n) => logs.push(n.params));
      c.setNotificationHandler('notifications/resources/list_changed', () => listChanges.push({}));
      c.setNotificationHandler('notifications/resources/updated', (n) => updates.push(n.params));
    },
  });
  const { client } = conn;
  const call = (name, args, logLevel) => client.callTool(
    { name, arguments: args, ...(logLevel ? { _meta: { [LOG_LEVEL_KEY]: logLevel } } : {}) });
  try {
    const listening = await client.listen({ resourcesListChanged: true });
    assert.equal(listening.honoredFilter.resourcesListChanged, true);

    // A request without a logLevel gets no logs; a new session reaches the listen stream.
    let before = listChanges.seen.length;
    const created = await call('create_session', { device_id: 'notify-v2' });
    assert.equal(created.isError, false);
    await listChanges.next(() => true, 'list_changed after create_session', before);
    assert.deepEqual(logs.seen, [], 'no logs without a _meta logLevel');

    // With logLevel info: the open is logged; the debug line is not. The port list changed.
    before = listChanges.seen.length;
    const opened = await call('open_port', { port_name: LOOP, baud_rate: 9600 }, 'info');
    assert.equal(opened.isError, false);
    const openLog = await logs.next(logEvent('serial', 'port_opened', 'info'), 'port_opened log');
    assert.equal(openLog.data.port_name, LOOP);
    assert.ok(!logs.seen.some((p) => p.level === 'debug'), 'nothing below info');
    await listChanges.next(() => true, 'list_changed after open_port', before);

    // With logLevel debug: the backend call and its duration.
    const seenBefore = logs.seen.length;
    await call('status', { port_name: LOOP }, 'debug');
    const backend = await logs.next(logEvent('serial', 'backend_call', 'debug'), 'backend_call log', seenBefore);
    assert.equal(typeof backend.data.duration_ms, 'number');

    // A failed call logs an error at logLevel error.
    const failed = await call('open_port', { port_name: LOOP, baud_rate: 9600 }, 'error');
    assert.equal(failed.isError, true);
    const error = await logs.next(logEvent('serial', 'tool_failed', 'error'), 'tool_failed log');
    assert.equal(error.data.tool, 'open_port');

    // A port subscription through listen hears writes.
    const portListen = await client.listen({ resourceSubscriptions: [LOOP_URI] });
    assert.deepEqual(portListen.honoredFilter.resourceSubscriptions, [LOOP_URI]);
    const updatesBefore = updates.seen.length;
    await callOkV2(client, 'write', { port_name: LOOP, data: 'MEAS?' });
    await updates.next((p) => p.uri === LOOP_URI, 'resources/updated for the port', updatesBefore);

    // Closing the port changes the list again.
    before = listChanges.seen.length;
    await callOkV2(client, 'close', { port_name: LOOP });
    await listChanges.next(() => true, 'list_changed after close', before);

    // An auto-close is logged by the read that caused it (a request-scoped log), and it
    // changes the list.
    await callOkV2(client, 'open_port', { port_name: 'loop://idle', baud_rate: 9600, idle_disconnect_ms: 50 });
    before = listChanges.seen.length;
    const logsBefore = logs.seen.length;
    let idleRead;
    for (let i = 0; i < 400 && idleRead?.structuredContent?.event !== 'auto_close'; ++i) {
      idleRead = await call('read', { port_name: 'loop://idle', timeout_ms: 20 }, 'info');
      assert.equal(idleRead.isError, false, JSON.stringify(idleRead));
    }
    assert.equal(idleRead.structuredContent.event, 'auto_close', JSON.stringify(idleRead));
    const autoClosed = await logs.next(logEvent('serial', 'port_auto_closed', 'info'), 'port_auto_closed log', logsBefore);
    assert.equal(autoClosed.data.port_name, 'loop://idle');
    assert.equal(autoClosed.data.reason, 'idle_timeout');
    await listChanges.next(() => true, 'list_changed after the auto-close', before);
    await portListen.close();
    await listening.close();
  } finally {
    await conn.close();
  }
});

test('HTTP: a session created by one client is a list change for another', async () => {
  const gateway = await startHttpGateway();
  const watcher = await connectHttp(gateway.url, { name: 'watcher' });
  const creator = await connectHttp(gateway.url, { name: 'creator' });
  try {
    const listChanges = inbox();
    watcher.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => listChanges.push({}));
    // The notice travels on the watcher's GET stream, which the SDK opens after initialize.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = listChanges.seen.length;
    const { session } = await callOk(creator.client, 'create_session', { device_id: 'seen-by-watcher' });
    await listChanges.next(() => true, 'list_changed from another client\'s create_session', before);
    const { resources } = await watcher.client.listResources();
    assert.ok(resources.some((r) => r.uri === `labgate://sessions/${session.id}`));
  } finally {
    await watcher.client.close();
    await creator.client.close();
    const result = await gateway.stop();
    assert.equal(result.code, 0, gateway.stderr());
  }
});
