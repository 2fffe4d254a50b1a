// Three gateways share one standalone labgate-serial. A client of gateway B opens, closes and
// lets a port auto-close; the clients of gateways A (official v1 SDK, stateful era) and C
// (official v2 SDK, 2026-07-28 era through subscriptions/listen) hear each change as
// notifications/resources/list_changed, although their own gateways made no call: each gateway
// watches every port of the serial service (WatchPorts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  LoggingMessageNotificationSchema, ResourceListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { BIN, tempDir, removeDir, startService, connectStdio, callOk } from './lib/harness.mjs';
import { connectV2Stdio } from './lib/v2_client.mjs';
import { eventually } from './lib/serial_helpers.mjs';

const WAIT_MS = 20000;

// Ports open on the serial service, as gateway A's client reads them.
async function portsSeenBy(client) {
  const { contents } = await client.readResource({ uri: 'labgate://ports' });
  return JSON.parse(contents[0].text).ports.map((p) => p.port_name);
}

test('list_changed reaches the clients of other gateways when a port opens, closes and auto-closes', async () => {
  const serial = await startService(BIN.serial);
  const dirs = [tempDir(), tempDir()];
  const changes = { a: 0, c: 0 };
  const logsOfB = [];
  const gatewayA = await connectStdio(['--data-dir', dirs[0], '--serial-addr', serial.address], {
    setup(client) {
      client.setNotificationHandler(ResourceListChangedNotificationSchema, () => { changes.a += 1; });
    },
  });
  const gatewayB = await connectStdio(['--data-dir', dirs[1], '--serial-addr', serial.address], {
    setup(client) {
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logsOfB.push(n.params));
    },
  });
  const gatewayC = await connectV2Stdio(['--serial-addr', serial.address], {
    setup(client) {
      client.setNotificationHandler('notifications/resources/list_changed', () => { changes.c += 1; });
    },
  });
  const a = gatewayA.client;
  const b = gatewayB.client;
  let listening;
  try {
    listening = await gatewayC.client.listen({ resourcesListChanged: true });
    assert.equal(listening.honoredFilter.resourcesListChanged, true);
    await b.setLoggingLevel('info');

    // Each gateway's watch starts on its own: open and close a port on B until both
    // watchers have heard one such pair in full, so that nothing of the warm-up is left
    // on its way.
    await eventually(async () => {
      const before = { ...changes };
      await callOk(b, 'open_port', { port_name: 'loop://warm-up', baud_rate: 9600 });
      await callOk(b, 'close', { port_name: 'loop://warm-up' });
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline) {
        if (changes.a >= before.a + 2 && changes.c >= before.c + 2) return true;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return false;
    }, 'the watchers to hear a port open and close on another gateway', WAIT_MS * 2);

    // From here on, B's calls are the only changes: each is one notice for A and for C.
    const heard = (what) => {
      const target = { a: changes.a + 1, c: changes.c + 1 };
      return async () => {
        await eventually(() => changes.a >= target.a, `gateway A's client to hear ${what}`, WAIT_MS);
        await eventually(() => changes.c >= target.c, `gateway C's client to hear ${what}`, WAIT_MS);
      };
    };

    let wait = heard('an open');
    await callOk(b, 'open_port', { port_name: 'loop://shared', baud_rate: 9600 });
    await wait();
    assert.ok((await portsSeenBy(a)).includes('loop://shared'), 'A lists the port B opened');

    wait = heard('a close');
    await callOk(b, 'write', { port_name: 'loop://shared', data: 'written, not a list change' });
    await callOk(b, 'close', { port_name: 'loop://shared' });
    await wait();
    assert.ok(!(await portsSeenBy(a)).includes('loop://shared'), 'A no longer lists the closed port');

    wait = heard('an open with idle_disconnect_ms');
    await callOk(b, 'open_port', { port_name: 'loop://idle', baud_rate: 9600, idle_disconnect_ms: 100 });
    await wait();

    // The port closes on B's first read after 100 ms without I/O.
    wait = heard('an auto-close');
    const read = await eventually(async () => {
      const result = await callOk(b, 'read', { port_name: 'loop://idle', timeout_ms: 20 });
      return result.event === 'auto_close' ? result : null;
    }, 'the idle port to auto-close', WAIT_MS);
    assert.equal(read.reason, 'idle_timeout');
    await wait();
    assert.ok(!(await portsSeenBy(a)).includes('loop://idle'), 'A no longer lists the auto-closed port');

    // The owner hears its auto-close as a log of the read that caused it.
    const autoClosed = await eventually(
      () => logsOfB.find((p) => p.logger === 'serial' && p.data?.event === 'port_auto_closed'),
      'the port_auto_closed log on B', WAIT_MS);
    assert.equal(autoClosed.level, 'info');
    assert.equal(autoClosed.data.port_name, 'loop://idle');
    assert.equal(autoClosed.data.reason, 'idle_timeout');
    assert.equal(autoClosed.data.idle_ms, 100);
  } finally {
    await listening?.close().catch(() => {});
    await gatewayC.close();
    await a.close();
    await b.close();
    const stopped = await serial.stop();
    for (const dir of dirs) removeDir(dir);
    assert.equal(stopped.code, 0, serial.stderr());
  }
});
