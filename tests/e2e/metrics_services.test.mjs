// The standalone services serve their own /metrics on --metrics-listen, and a gateway in
// front of them counts their health. Real processes: labgate-session, labgate-serial and
// labgate-actions on port 0, and a stdio gateway using all three through the SDK client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { BIN, startService, connectStdio, callOk, tempDir, removeDir } from './lib/harness.mjs';
import { scrape, scrapeUntil, waitForPortFile } from './lib/metrics.mjs';

async function withMetrics(binary, dir, name, extra = []) {
  const portFile = join(dir, `${name}.metrics-port`);
  const service = await startService(binary,
    ['--metrics-listen', '127.0.0.1:0', '--metrics-port-file', portFile, ...extra]);
  const port = await waitForPortFile(portFile, { child: service.child });
  return { service, url: `http://127.0.0.1:${port}/metrics` };
}

test('each standalone service serves its own families, which follow the calls made through a gateway', async () => {
  const dir = tempDir();
  const session = await withMetrics(BIN.session, dir, 'session', ['--data-dir', join(dir, 'data')]);
  const serial = await withMetrics(BIN.serial, dir, 'serial', ['--session-addr', session.service.address]);
  const actions = await withMetrics(BIN.actions, dir, 'actions');
  const gatewayPortFile = join(dir, 'gateway.metrics-port');
  let gateway;
  try {
    let s = await scrape(session.url);
    assert.equal(s.value('labgate_session_appends_total'), 0);
    assert.equal(s.families.get('labgate_session_fsync_duration_seconds').type, 'histogram');
    assert.ok(!s.families.has('labgate_serial_open_ports'), 'a service lists only its own families');
    let p = await scrape(serial.url);
    assert.equal(p.value('labgate_serial_open_ports'), 0);
    assert.ok(!p.families.has('labgate_session_appends_total'));
    assert.ok((await scrape(actions.url)).families.has('labgate_action_invocations_total'));

    gateway = await connectStdio(['--session-addr', session.service.address,
      '--serial-addr', serial.service.address, '--actions-addr', actions.service.address,
      '--metrics-listen', '127.0.0.1:0', '--metrics-port-file', gatewayPortFile]);
    const { client } = gateway;
    const { session: record } = await callOk(client, 'create_session', { device_id: 'scope' });
    await callOk(client, 'open_port', { port_name: 'loop://rec', baud_rate: 9600, session_id: record.id });
    await callOk(client, 'write', { port_name: 'loop://rec', data: '*IDN?' });
    await callOk(client, 'deescalation_plan', { situation: 'Two colleagues argue about the bench' });

    p = await scrape(serial.url);
    assert.equal(p.value('labgate_serial_open_ports'), 1);
    assert.ok(p.value('labgate_serial_bytes_total', { direction: 'tx' }) >= 5);
    // The port's I/O is recorded to the session service, which commits it.
    s = await scrapeUntil(session.url, (e) => e.value('labgate_session_appends_total') >= 2);
    assert.ok(s.value('labgate_session_commit_batch_size_count') >= 1);
    assert.ok(s.value('labgate_session_database_bytes') > 0);
    // labgate-session also serves the reservations, with their families from the start.
    assert.equal(s.value('labgate_reservations_waiting'), 0);
    assert.equal(s.value('labgate_reservation_grants_total'), 0);
    await scrapeUntil(serial.url, (e) => e.value('labgate_serial_recording_queue_depth') === 0);
    const a = await scrape(actions.url);
    assert.equal(a.value('labgate_action_invocations_total', { action: 'deescalation_plan', outcome: 'ok' }), 1);

    await callOk(client, 'close', { port_name: 'loop://rec' });
    assert.equal((await scrape(serial.url)).value('labgate_serial_open_ports'), 0);

    // The gateway, scraped on its own --metrics-listen, sees all three backends up and lists
    // no serial families of its own (the serial service is remote).
    const port = await waitForPortFile(gatewayPortFile);
    const g = await scrapeUntil(`http://127.0.0.1:${port}/metrics`, (e) => ['session', 'serial', 'actions']
      .every((service) => e.value('labgate_backend_up', { service, bench: '' }) === 1));
    assert.ok(!g.families.has('labgate_serial_open_ports'));
    assert.equal(g.value('labgate_tool_calls_total', { tool: 'deescalation_plan', outcome: 'ok' }), 1);
  } finally {
    if (gateway) await gateway.client.close();
    for (const one of [serial, actions, session]) await one.service.stop();
    removeDir(dir);
  }
});

test('a service refuses a bad --metrics-listen at start and in --check-config', async () => {
  const { spawnSync } = await import('node:child_process');
  for (const binary of [BIN.session, BIN.serial, BIN.actions]) {
    const checked = spawnSync(binary, ['--check-config', '--metrics-listen', 'nonsense'], { encoding: 'utf8' });
    assert.equal(checked.status, 2, `${binary}: ${checked.stdout}${checked.stderr}`);
    assert.match(checked.stderr, /--metrics-listen/);
  }
  const gateway = spawnSync(BIN.labgate, ['--check-config', '--metrics-listen', 'nonsense'], { encoding: 'utf8' });
  assert.equal(gateway.status, 2, gateway.stdout + gateway.stderr);
  assert.match(gateway.stderr, /--metrics-listen/);
});
