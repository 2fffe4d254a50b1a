// The console's JSON and SSE API (/console/api/) against a real gateway with real
// services: shapes, live events, filters and exports, refusals (401, 403, 404, 405),
// and benches. The MCP SDK client does the lab work the console then shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { BIN, tempDir, removeDir, startService, callOk } from './lib/harness.mjs';
import { startHttpGateway, connectHttp } from './lib/http_gateway.mjs';
import { eventually } from './lib/serial_helpers.mjs';
import { getJson, openEvents, encodePort } from './lib/console_client.mjs';

const POLICY = JSON.stringify({
  ports: [
    { match: 'loop://locked', allow: false },
    { match: 'loop://*', max_baud: 115200, confirm: [{ name: 'output-on', pattern: '^OUTP ON' }] },
  ],
});

test('ports, sessions, transcripts, exports, backends and live events, without tokens', async () => {
  const dir = tempDir();
  const policy = join(dir, 'policy.json');
  writeFileSync(policy, POLICY);
  const gw = await startHttpGateway(['--policy', policy]);
  const base = `http://127.0.0.1:${gw.port}`;
  const { client } = await connectHttp(gw.url);
  try {
    const { session } = await callOk(client, 'create_session', { device_id: 'DMM-7', port_name: 'loop://api' });
    await callOk(client, 'open_port', { port_name: 'loop://api', baud_rate: 9600, session_id: session.id });
    await callOk(client, 'write', { port_name: 'loop://api', data: '*IDN?' });
    await callOk(client, 'read', { port_name: 'loop://api', timeout_ms: 500 });
    // The port records itself in the background; the note goes after its three records.
    await eventually(async () => (await callOk(client, 'list_messages', { session_id: session.id })).messages.length === 3,
      'the port\'s records');
    await callOk(client, 'append_message', { session_id: session.id, role: 'assistant',
      content: 'the meter says hello', features: 'scpi, idn' });
    const other = (await callOk(client, 'create_session', { device_id: 'psu-2' })).session;
    await callOk(client, 'append_message', { session_id: other.id, content: 'no tags here' });

    const page = await fetch(`${base}/console`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type'), /^text\/html/);
    assert.match(page.headers.get('content-security-policy'), /default-src 'none'.*connect-src 'self'/);
    const html = await page.text();
    assert.match(html, /<title>labgate console<\/title>/);
    assert.doesNotMatch(html, /<(script|link|img)[^>]+(src|href)=["']?(https?:)?\/\//i, 'nothing loaded from elsewhere');
    assert.equal((await fetch(`${base}/console/`)).status, 200);

    const { csrf: localCsrf, ...me } = (await getJson(base, '/console/api/whoami')).json;
    assert.deepEqual(me, { principal: 'local', tokens: false, role: 'unrestricted' });
    assert.match(localCsrf, /^[0-9a-f]{64}$/, 'the token console POSTs carry');

    const ports = await getJson(base, '/console/api/ports');
    assert.equal(ports.status, 200);
    assert.match(ports.headers.get('cache-control'), /no-store/);
    assert.deepEqual(ports.json.benches, [{ name: '', address: '', reachable: true }]);
    assert.equal(ports.json.truncated, false);
    const port = ports.json.ports.find((p) => p.name === 'loop://api');
    assert.ok(port, JSON.stringify(ports.json));
    assert.equal(port.bench, '');
    assert.equal(port.local_name, 'loop://api');
    assert.equal(port.state, 'open');
    assert.equal(port.owner, 'http:local');
    assert.equal(port.session_id, session.id);
    assert.equal(port.settings.baud_rate, 9600);
    assert.equal(port.counters.bytes_written_total, 5);
    assert.equal(port.counters.bytes_read_total, 5);
    assert.equal(port.counters.records_lost, 0);
    assert.equal(port.policy.match, 'loop://*');
    assert.equal(port.policy.allowed, true);
    assert.equal(port.policy.max_baud, 115200);
    assert.deepEqual(port.policy.confirm_rules, ['output-on']);
    assert.equal(port.policy.source, policy);

    const one = await getJson(base, `/console/api/ports/${encodePort('loop://api')}`);
    assert.equal(one.status, 200);
    assert.equal(one.json.owner, 'http:local');
    const missing = await getJson(base, `/console/api/ports/${encodePort('loop://nowhere')}`);
    assert.equal(missing.status, 404);
    assert.match(missing.json.error, /no such port: loop:\/\/nowhere/);
    const missingEvents = await getJson(base, `/console/api/ports/${encodePort('loop://nowhere')}/events`);
    assert.equal(missingEvents.status, 404);
    assert.match(missingEvents.json.error, /no such port/);

    // Sessions: all, then filtered by device (any case, part of the id) and by feature.
    const all = await getJson(base, '/console/api/sessions');
    assert.equal(all.status, 200);
    assert.deepEqual(all.json.sessions.map((s) => s.device_id).sort(), ['DMM-7', 'psu-2']);
    assert.equal(all.json.count, 2);
    const listed = all.json.sessions.find((s) => s.id === session.id);
    assert.equal(listed.port_name, 'loop://api');
    assert.equal(listed.closed, false);
    assert.match(listed.created_at, /^\d{4}-\d\d-\d\dT/);
    const byDevice = await getJson(base, '/console/api/sessions?device=dmm');
    assert.deepEqual(byDevice.json.sessions.map((s) => s.id), [session.id]);
    assert.equal((await getJson(base, '/console/api/sessions?device=nothing')).json.count, 0);
    const byFeature = await getJson(base, '/console/api/sessions?feature=IDN');
    assert.deepEqual(byFeature.json.sessions.map((s) => s.id), [session.id]);
    const serial = await getJson(base, '/console/api/sessions?feature=serial');
    assert.deepEqual(serial.json.sessions.map((s) => s.id), [session.id], 'recorded port I/O carries "serial"');
    assert.equal((await getJson(base, '/console/api/sessions?feature=idn&device=psu')).json.count, 0);
    const limited = await getJson(base, '/console/api/sessions?limit=1');
    assert.equal(limited.json.count, 1);
    const badLimit = await getJson(base, '/console/api/sessions?limit=0');
    assert.equal(badLimit.status, 400);
    assert.match(badLimit.json.error, /limit must be a whole number from 1 to 1000/);

    // The transcript: the port's own records (opened, tx, rx) and the assistant's note.
    const transcript = await eventually(async () => {
      const answer = await getJson(base, `/console/api/sessions/${session.id}`);
      return answer.json.messages?.length >= 4 ? answer : null;
    }, 'four messages in the transcript');
    assert.equal(transcript.json.session.device_id, 'DMM-7');
    const contents = transcript.json.messages.map((m) => [m.direction ?? m.role, m.content]);
    assert.deepEqual(contents.slice(1), [['tx', '*IDN?'], ['rx', '*IDN?'], ['assistant', 'the meter says hello']]);
    assert.match(contents[0][1], /^opened at 9600 baud for http:local/);
    assert.equal(transcript.json.features.scpi, 1);
    assert.equal(transcript.json.features.serial, 3);
    assert.equal(transcript.json.next_cursor, null);
    const tagged = await getJson(base, `/console/api/sessions/${session.id}?feature=idn`);
    assert.deepEqual(tagged.json.messages.map((m) => m.content), ['the meter says hello']);
    const page1 = await getJson(base, `/console/api/sessions/${session.id}?limit=2`);
    assert.deepEqual(page1.json.messages.map((m) => m.message_id), [1, 2]);
    assert.equal(page1.json.next_cursor, 2);
    const page2 = await getJson(base, `/console/api/sessions/${session.id}?limit=2&after=2`);
    assert.deepEqual(page2.json.messages.map((m) => m.message_id), [3, 4]);

    // Exports: JSON is {session, messages}; NDJSON a session line, then a line per message.
    const asJson = await getJson(base, `/console/api/sessions/${session.id}/export?format=json`);
    assert.equal(asJson.status, 200);
    assert.match(asJson.headers.get('content-disposition'), new RegExp(`attachment; filename="labgate-session-${session.id}\\.json"`));
    assert.equal(asJson.json.session.id, session.id);
    assert.deepEqual(asJson.json.messages, transcript.json.messages);
    const asNdjson = await getJson(base, `/console/api/sessions/${session.id}/export?format=ndjson`);
    assert.equal(asNdjson.status, 200);
    assert.match(asNdjson.headers.get('content-type'), /^application\/x-ndjson/);
    const lines = asNdjson.text.trimEnd().split('\n').map((line) => JSON.parse(line));
    assert.equal(lines[0].session.id, session.id);
    assert.deepEqual(lines.slice(1).map((line) => line.message), transcript.json.messages);
    assert.equal((await getJson(base, `/console/api/sessions/${session.id}/export`)).json.session.id, session.id,
      'JSON is the default');
    const badFormat = await getJson(base, `/console/api/sessions/${session.id}/export?format=xml`);
    assert.equal(badFormat.status, 400);
    assert.match(badFormat.json.error, /format must be json or ndjson/);

    const unknown = randomUUID();
    for (const suffix of ['', '/export', '/events']) {
      const answer = await getJson(base, `/console/api/sessions/${unknown}${suffix}`);
      assert.equal(answer.status, 404, suffix);
      assert.match(answer.json.error, new RegExp(unknown), suffix);
    }

    // The queue and its holders: loop://api is open, so reservable; local reserves it.
    await eventually(async () => (await callOk(client, 'list_reservations', {})).reservables
      .some((r) => r.name === 'loop://api'), 'loop://api reservable');
    const reserved = await callOk(client, 'reserve', { targets: ['loop://api'] });
    const reservations = await getJson(base, '/console/api/reservations');
    assert.equal(reservations.status, 200);
    assert.deepEqual(reservations.json.reservations.map((r) => [r.id, r.holder, r.state, r.granted]),
      [[reserved.id, 'http:local', 'granted', ['loop://api']]]);
    assert.equal(reservations.json.reservables.find((r) => r.name === 'loop://api')?.holder, 'http:local');
    await callOk(client, 'release_reservation', { id: reserved.id });
    assert.deepEqual((await getJson(base, '/console/api/reservations')).json.reservations, []);

    const backends = await getJson(base, '/console/api/backends');
    assert.equal(backends.status, 200);
    assert.equal(backends.json.ready, true);
    assert.deepEqual(backends.json.backends.map((b) => [b.name, b.serving, b.state]), [
      ['actions service (embedded)', true, 'serving'],
      ['reservations service (embedded)', true, 'serving'],
      ['serial service (embedded)', true, 'serving'],
      ['session service (embedded)', true, 'serving'],
      ['tasks service (embedded)', true, 'serving'],
    ]);

    // Live: the port's stream starts with its current state, then carries what is
    // written (tx) and what comes back (rx) as it happens.
    const portEvents = await openEvents(base, `/console/api/ports/${encodePort('loop://api')}/events`);
    assert.equal(portEvents.status, 200);
    assert.match(portEvents.headers.get('content-type'), /^text\/event-stream/);
    const current = await portEvents.next((e) => e.type === 'opened', 'the current state');
    assert.equal(current.reason, 'current state');
    assert.equal(current.port, 'loop://api');
    const sessionEvents = await openEvents(base, `/console/api/sessions/${session.id}/events`);
    await sessionEvents.next((e) => e.type === 'ready', 'the session watch');
    await callOk(client, 'write', { port_name: 'loop://api', data: 'VOLT 2.5' });
    const written = await portEvents.next((e) => e.type === 'written', 'the write');
    assert.equal(written.data, 'VOLT 2.5');
    assert.equal(written.encoding, 'text');
    assert.equal(typeof written.timestamp_ms, 'number');
    const echoed = await portEvents.next((e) => e.type === 'data', 'the loopback echo');
    assert.equal(echoed.data, 'VOLT 2.5');
    const appended = await sessionEvents.next((e) => e.type === 'appended' && e.message.content === 'VOLT 2.5',
      'the recorded write');
    assert.equal(appended.message.direction, 'tx');
    assert.equal(appended.session.id, session.id);
    await callOk(client, 'close', { port_name: 'loop://api' });
    const closed = await portEvents.next((e) => e.type === 'closed', 'the close');
    assert.equal(closed.reason, 'closed by client');
    portEvents.close();
    sessionEvents.close();

    // Read-only and same-origin: other methods are refused, and so are foreign pages.
    for (const [method, path] of [['POST', '/console/api/ports'], ['DELETE', '/console'],
      ['PUT', `/console/api/sessions/${session.id}`], ['HEAD', '/console/api/backends']]) {
      const refused = await getJson(base, path, { method });
      assert.equal(refused.status, 405, `${method} ${path}`);
      assert.equal(refused.headers.get('allow'), 'GET');
      if (method !== 'HEAD') assert.match(refused.json.error, /read-only/);
    }
    const foreign = await getJson(base, '/console/api/ports', { headers: { Origin: 'https://evil.example' } });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.json.error, 'Origin not allowed');
    // fetch may not set Host; node:http may.
    const rebound = await new Promise((resolve, reject) => {
      request({ host: '127.0.0.1', port: gw.port, path: '/console/api/ports', headers: { Host: 'evil.example' } },
        (response) => { response.resume(); resolve(response.statusCode); }).on('error', reject).end();
    });
    assert.equal(rebound, 403, 'a DNS-rebinding page is refused');
    const nowhere = await getJson(base, '/console/api/nothing');
    assert.equal(nowhere.status, 404);
    assert.equal(nowhere.json.error, 'no such console endpoint: /console/api/nothing');
    assert.equal((await getJson(base, '/console/nothing')).status, 404);

    // The gateway still serves MCP after all of this.
    await callOk(client, 'list_ports');
  } finally {
    await client.close();
    await gw.stop();
    removeDir(dir);
  }
});

test('with --auth-token-file every API call needs a bearer token; the page loads without one', async () => {
  const dir = tempDir();
  const tokens = join(dir, 'tokens');
  writeFileSync(tokens, 'alice token-of-alice\nbob token-of-bob\n');
  const gw = await startHttpGateway(['--auth-token-file', tokens]);
  const base = `http://127.0.0.1:${gw.port}`;
  const { client } = await connectHttp(gw.url,
    { requestInit: { headers: { Authorization: 'Bearer token-of-alice' } } });
  try {
    await callOk(client, 'open_port', { port_name: 'loop://alice', baud_rate: 9600 });
    assert.equal((await fetch(`${base}/console`)).status, 200, 'the page asks for the token itself');
    const paths = ['/console/api/whoami', '/console/api/ports', '/console/api/sessions', '/console/api/backends',
      `/console/api/ports/${encodePort('loop://alice')}/events`, `/console/api/sessions/${randomUUID()}`];
    for (const path of paths) {
      const none = await getJson(base, path);
      assert.equal(none.status, 401, path);
      assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="labgate"');
      assert.match(none.json.error, /needs a bearer token/);
      const wrong = await getJson(base, path, { token: 'token-of-mallory' });
      assert.equal(wrong.status, 401, path);
      assert.equal(wrong.headers.get('www-authenticate'), 'Bearer realm="labgate", error="invalid_token"');
      assert.match(wrong.json.error, /not accepted/);
    }
    assert.equal((await getJson(base, '/console/api/ports', { method: 'POST' })).status, 401,
      'a refused token is refused before anything else');
    const { csrf: bobCsrf, ...bobMe } = (await getJson(base, '/console/api/whoami', { token: 'token-of-bob' })).json;
    assert.deepEqual(bobMe, { principal: 'bob', tokens: true, role: 'unrestricted' });
    assert.match(bobCsrf, /^[0-9a-f]{64}$/);
    const ports = await getJson(base, '/console/api/ports', { token: 'token-of-bob' });
    assert.equal(ports.status, 200);
    assert.equal(ports.json.ports.find((p) => p.name === 'loop://alice').owner, 'http:alice',
      'any principal sees who holds a port');
    const events = await openEvents(base, `/console/api/ports/${encodePort('loop://alice')}/events`,
      { token: 'token-of-bob' });
    assert.equal(events.status, 200);
    await events.next((e) => e.type === 'opened', 'the current state');
    events.close();
  } finally {
    await client.close();
    await gw.stop();
    removeDir(dir);
  }
});

test('with benches, ports are listed per bench and a bench that is down is named', async () => {
  const bench1 = await startService(BIN.serial);
  const bench2 = await startService(BIN.serial);
  const gw = await startHttpGateway(['--call-timeout-ms', '3000',
    '--serial-addr', `lab-a=${bench1.address}`, '--serial-addr', `lab-b=${bench2.address}`]);
  const base = `http://127.0.0.1:${gw.port}`;
  const { client } = await connectHttp(gw.url);
  try {
    await callOk(client, 'open_port', { port_name: 'lab-a:loop://x', baud_rate: 9600 });
    await callOk(client, 'open_port', { port_name: 'lab-b:loop://y', baud_rate: 19200 });
    const ports = await getJson(base, '/console/api/ports');
    assert.deepEqual(ports.json.benches, [
      { name: 'lab-a', address: bench1.address, reachable: true },
      { name: 'lab-b', address: bench2.address, reachable: true },
    ]);
    const x = ports.json.ports.find((p) => p.name === 'lab-a:loop://x');
    assert.equal(x.bench, 'lab-a');
    assert.equal(x.local_name, 'loop://x');
    assert.equal(x.owner, 'http:local');
    const y = ports.json.ports.find((p) => p.name === 'lab-b:loop://y');
    assert.equal(y.bench, 'lab-b');
    assert.equal(y.settings.baud_rate, 19200);
    assert.ok(ports.json.ports.every((p) => p.name === `${p.bench}:${p.local_name}`));

    const described = await getJson(base, `/console/api/ports/${encodePort('lab-b:loop://y')}`);
    assert.equal(described.json.settings.baud_rate, 19200);
    const wrongBench = await getJson(base, `/console/api/ports/${encodePort('lab-c:loop://x')}`);
    assert.equal(wrongBench.status, 404);
    assert.match(wrongBench.json.error, /unknown bench 'lab-c'/);
    const otherBench = await getJson(base, `/console/api/ports/${encodePort('lab-b:loop://x')}`);
    assert.equal(otherBench.status, 404, 'loop://x is open on lab-a only');

    const events = await openEvents(base, `/console/api/ports/${encodePort('lab-a:loop://x')}/events`);
    await events.next((e) => e.type === 'opened', 'the current state');
    await callOk(client, 'write', { port_name: 'lab-a:loop://x', data: 'bench a' });
    const written = await events.next((e) => e.type === 'written', 'the write');
    assert.equal(written.port, 'lab-a:loop://x');
    assert.equal(written.data, 'bench a');
    events.close();

    await bench2.stop('SIGKILL');
    const partial = await getJson(base, '/console/api/ports');
    assert.equal(partial.status, 200);
    const down = partial.json.benches.find((b) => b.name === 'lab-b');
    assert.equal(down.reachable, false);
    assert.match(down.error, /not reachable|failed to connect|unavailable/i);
    assert.ok(partial.json.ports.some((p) => p.name === 'lab-a:loop://x'));
    assert.ok(partial.json.ports.every((p) => p.bench === 'lab-a'));
    const backends = await getJson(base, '/console/api/backends');
    assert.equal(backends.json.ready, false);
    const benchB = backends.json.backends.find((b) => b.name.startsWith('bench lab-b: '));
    assert.equal(benchB.serving, false);
    assert.equal(backends.json.backends.find((b) => b.name.startsWith('bench lab-a: ')).serving, true);
  } finally {
    await client.close();
    await gw.stop();
    await bench1.stop();
    await bench2.stop();
  }
});

test('a named instrument shows beside its path, and its limits bind writes by either name', async () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'profiles'));
  // A loopback stands in for the supply: no probe, the limits only.
  writeFileSync(join(dir, 'profiles', 'psu.json'), JSON.stringify({
    model: 'LOOP-PSU',
    settings: { baud_rate: 9600, terminator: '\n' },
    quantities: { voltage: { unit: 'V', headers: ['[SOURce#:]VOLTage[:LEVel]'] } },
    limits: [{ name: 'max-voltage', quantity: 'voltage', max: 5 }],
  }));
  writeFileSync(join(dir, 'instruments.json'), JSON.stringify({
    instruments: [{ name: 'loop-psu', profile: 'LOOP-PSU', match: { port_name: 'loop://psu' } }],
  }));
  const gw = await startHttpGateway(['--profiles', join(dir, 'profiles'), '--instruments', join(dir, 'instruments.json')]);
  const base = `http://127.0.0.1:${gw.port}`;
  const { client } = await connectHttp(gw.url);
  try {
    const opened = await callOk(client, 'open_port', { instrument: 'loop-psu' });
    assert.equal(opened.port_name, 'loop-psu');
    assert.equal(opened.device_path, 'loop://psu');
    const ports = await getJson(base, '/console/api/ports');
    const port = ports.json.ports.find((p) => p.local_name === 'loop://psu');
    assert.ok(port, JSON.stringify(ports.json));
    assert.equal(port.instrument, 'loop-psu');
    assert.equal(port.state, 'open');
    assert.equal(port.owner, 'http:local');
    const { ports: listed } = await callOk(client, 'list_ports', {});
    assert.deepEqual(listed.find((p) => p.port_name === 'loop://psu'), { port_name: 'loop://psu', instrument: 'loop-psu' });

    for (const name of ['loop-psu', 'loop://psu']) {
      const refused = await client.callTool({ name: 'write', arguments: { port_name: name, data: 'VOLT 12' } });
      assert.equal(refused.isError, true);
      assert.match(refused.content[0].text, /12 V exceeds max-voltage \(5 V\) on loop-psu channel 1/);
    }
    await callOk(client, 'write', { port_name: 'loop://psu', data: 'VOLT 4' });
    const page = await (await fetch(`${base}/console`)).text();
    assert.match(page, /port\.instrument/, 'the page shows the instrument beside the path');
  } finally {
    await client.close();
    await gw.stop();
    removeDir(dir);
  }
});

test('a replay started from the console is the operator\'s own port, and shows its progress and divergences', async () => {
  const dir = tempDir();
  const tokens = join(dir, 'tokens');
  writeFileSync(tokens, 'alice token-of-alice\nbob token-of-bob\n');
  const gw = await startHttpGateway(['--auth-token-file', tokens]);
  const base = `http://127.0.0.1:${gw.port}`;
  const alice = (await connectHttp(gw.url, { requestInit: { headers: { Authorization: 'Bearer token-of-alice' } } })).client;
  const bob = (await connectHttp(gw.url, { requestInit: { headers: { Authorization: 'Bearer token-of-bob' } } })).client;
  const csrfOf = async (token) => (await getJson(base, '/console/api/whoami', { token })).json.csrf;
  const aliceCsrf = await csrfOf('token-of-alice');
  const post = (body, token = 'token-of-alice', extra = { 'X-Labgate-Csrf': aliceCsrf }) =>
    fetch(`${base}/console/api/replays`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...extra },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }).then(async (response) => ({ status: response.status, json: await response.json() }));
  try {
    const { session } = await callOk(alice, 'create_session', { device_id: 'DMM-7' });
    await callOk(alice, 'open_port', { port_name: 'loop://bench', baud_rate: 9600, terminator: '\n', session_id: session.id });
    assert.equal((await callOk(alice, 'query', { port_name: 'loop://bench', data: 'MEAS?' })).data, 'MEAS?');
    await callOk(alice, 'close', { port_name: 'loop://bench' });
    await eventually(async () => (await callOk(alice, 'list_messages', { session_id: session.id })).messages
      .filter((m) => m.direction !== 'event').length === 2, 'the recorded query');

    const started = await post({ session_id: session.id, speed: 0 });
    assert.equal(started.status, 201, JSON.stringify(started.json));
    const port = `replay://${session.id}?speed=0`;
    assert.deepEqual(started.json, { port_name: port, owner: 'http:alice' });

    // The operator's assistant (the same token) drives it; another principal may not.
    assert.equal((await callOk(alice, 'query', { port_name: port, data: 'MEAS?' })).data, 'MEAS?');
    const inUse = await bob.callTool({ name: 'query', arguments: { port_name: port, data: 'MEAS?' } });
    assert.equal(inUse.isError, true);
    assert.match(inUse.content[0].text, /in use/);
    const diverged = await alice.callTool({ name: 'write', arguments: { port_name: port, data: 'RESET' } });
    assert.equal(diverged.isError, true);
    assert.match(diverged.content[0].text, /replay diverged: sent "RESET\\n" after every tx/);

    const listed = (await getJson(base, '/console/api/ports', { token: 'token-of-alice' })).json.ports
      .find((p) => p.name === port);
    assert.ok(listed, 'the replay is listed');
    assert.equal(listed.owner, 'http:alice');
    assert.equal(listed.replay.session_id, session.id);
    assert.equal(listed.replay.summary, 'matched 1 of 1, 1 divergence, finished');
    assert.equal(listed.replay.divergences[0].sent, 'RESET\n');
    assert.equal(listed.replay.divergences[0].message_id, 0, 'nothing was left to expect');
    const plain = (await getJson(base, '/console/api/ports', { token: 'token-of-alice' })).json.ports
      .filter((p) => !p.name.startsWith('replay://'));
    assert.ok(plain.every((p) => p.replay === null), 'other ports have no replay');

    // Refusals: no token, no CSRF token, another principal's, a cross-origin POST, a bad body,
    // an unknown session, a bad speed, and GET.
    assert.equal((await post({ session_id: session.id }, null)).status, 401);
    const noCsrf = await post({ session_id: session.id }, 'token-of-alice', {});
    assert.equal(noCsrf.status, 403);
    assert.match(noCsrf.json.error, /missing X-Labgate-Csrf header/);
    const bobsCsrf = await post({ session_id: session.id }, 'token-of-alice',
      { 'X-Labgate-Csrf': await csrfOf('token-of-bob') });
    assert.equal(bobsCsrf.status, 403);
    assert.match(bobsCsrf.json.error, /wrong X-Labgate-Csrf token for alice/);
    // localhost is an allowed origin, but not this console's (127.0.0.1): not the same origin.
    const crossOrigin = await post({ session_id: session.id }, 'token-of-alice',
      { 'X-Labgate-Csrf': aliceCsrf, Origin: `http://localhost:${gw.port}` });
    assert.equal(crossOrigin.status, 403);
    assert.match(crossOrigin.json.error, /cross-origin request refused/);
    for (const [body, pattern] of [['not json', /JSON object/], [{}, /session_id \(a string\) is required/],
      [{ session_id: 'a/b' }, /not a session id/], [{ session_id: session.id, speed: 'fast' }, /speed must be a number/]]) {
      const refused = await post(body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.match(refused.json.error, pattern);
    }
    const benchless = await post({ session_id: session.id, bench: 'lab-z' });
    assert.equal(benchless.status, 404, JSON.stringify(benchless.json));
    assert.match(benchless.json.error, /lab-z/);
    const missing = await post({ session_id: 'no-such-session' });
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error, 'no session no-such-session to replay');
    assert.equal((await post({ session_id: session.id, speed: -1 })).status, 400);
    const get = await getJson(base, '/console/api/replays', { token: 'token-of-alice' });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    await callOk(alice, 'list_ports');
  } finally {
    await alice.close();
    await bob.close();
    await gw.stop();
    removeDir(dir);
  }
});
