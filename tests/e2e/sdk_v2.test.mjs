// The official v2 MCP TypeScript SDK client (@modelcontextprotocol/client) against
// labgate in the stateless 2026-07-28 era, over stdio and over Streamable HTTP, with
// the version pinned and in `auto` mode (which must choose 2026-07-28 against labgate):
// the session, serial, prompt and resource surfaces, a transcript subscription through
// subscriptions/listen, -32602 error data, and input_required (elicitation) round trips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHttpGateway } from './lib/http_gateway.mjs';
import {
  MODERN, PROTOCOL_VERSION_KEY, SUBSCRIPTION_ID_KEY, SERVER_INFO_KEY,
  connectV2Stdio, connectV2Http, callOk, protocolError, within,
} from './lib/v2_client.mjs';

let gateway;
test.before(async () => { gateway = await startHttpGateway(); });
test.after(async () => {
  const result = await gateway.stop();
  assert.equal(result.code, 0, `labgate exits 0 on SIGTERM: ${gateway.stderr()}`);
});

const connect = {
  stdio: (mode, options = {}) => connectV2Stdio(options.args ?? [], { mode, ...options }),
  http: (mode, options = {}) => connectV2Http(options.url ?? gateway.url, { mode, ...options }),
};

// The connection negotiated the stateless era: no initialize, no session id, and every
// request carries the 2026 `_meta` (and, over HTTP, the 2026 headers).
function assertModernEra(conn) {
  const { client, wire } = conn;
  assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
  assert.equal(client.getProtocolEra(), 'modern');
  const discovered = client.getDiscoverResult();
  assert.ok(discovered, 'connect() ran server/discover');
  assert.ok(discovered.supportedVersions.includes(MODERN));
  assert.ok(discovered.supportedVersions.includes('2025-11-25'), 'labgate serves both eras');
  assert.equal(client.getServerVersion()?.name, 'labgate');
  assert.ok(client.getServerCapabilities()?.tools, 'tools capability from server/discover');

  const methods = wire.methodsSent();
  assert.ok(!methods.includes('initialize'), `no initialize was sent: ${methods}`);
  assert.ok(!methods.includes('notifications/initialized'), `no notifications/initialized: ${methods}`);
  for (const message of wire.sent.filter((m) => m.method && m.id !== undefined)) {
    assert.equal(message.params?._meta?.[PROTOCOL_VERSION_KEY], MODERN, `${message.method} carries _meta protocolVersion`);
  }
  if (conn.kind === 'http') {
    assert.equal(conn.transport.sessionId, undefined, 'no Mcp-Session-Id over HTTP');
    assert.ok(wire.http.length > 0);
    for (const exchange of wire.http) {
      assert.equal(exchange.method, 'POST', 'stateless HTTP only POSTs (no GET stream, no DELETE)');
      assert.equal(exchange.headers['mcp-protocol-version'], MODERN);
      if (exchange.body?.method && exchange.body.id !== undefined) {
        // Mcp-Method is required on every request (the SDK sends none on notifications).
        assert.equal(exchange.headers['mcp-method'], exchange.body.method, 'Mcp-Method mirrors the request');
        if (['tools/call', 'prompts/get'].includes(exchange.body.method) && exchange.body.params?.name) {
          assert.equal(exchange.headers['mcp-name'], exchange.body.params.name, 'Mcp-Name mirrors params.name');
        }
        if (exchange.body.method === 'resources/read') {
          assert.equal(exchange.headers['mcp-name'], exchange.body.params.uri, 'Mcp-Name mirrors params.uri');
        }
      }
      assert.equal(exchange.headers['mcp-session-id'], undefined);
      assert.equal(exchange.responseHeaders['mcp-session-id'], undefined, 'the server minted no session id');
    }
    // The connect-time probe went over this connection.
    assert.equal(wire.sent[0].method, 'server/discover');
  }
}

async function exerciseEverything(conn) {
  const { client, wire } = conn;
  assertModernEra(conn);

  // Tools.
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const name of ['create_session', 'append_message', 'list_messages', 'open_port', 'write', 'read', 'close']) {
    assert.ok(names.includes(name), `tools/list lacks ${name}`);
  }
  const [listRaw] = wire.responsesTo('tools/list');
  assert.equal(listRaw.result.resultType, 'complete');
  assert.equal(typeof listRaw.result.ttlMs, 'number');
  assert.ok(['public', 'private'].includes(listRaw.result.cacheScope));

  // Sessions.
  const { session } = await callOk(client, 'create_session', { device_id: `v2-${conn.kind}` });
  const first = await callOk(client, 'append_message', { session_id: session.id, content: '*IDN?', role: 'user', direction: 'tx' });
  assert.equal(first.message_id, 1);
  const second = await callOk(client, 'append_message', { session_id: session.id, content: 'ACME,PSU,1,2', role: 'device', direction: 'rx' });
  assert.equal(second.message_id, 2);
  const listed = await callOk(client, 'list_messages', { session_id: session.id });
  assert.equal(listed.count, 2);
  assert.deepEqual(listed.messages.map((m) => m.content), ['*IDN?', 'ACME,PSU,1,2']);

  // Raw tool results carry resultType "complete" and serverInfo (the client drops resultType).
  const callResults = wire.responsesTo('tools/call');
  assert.ok(callResults.length >= 4);
  for (const raw of callResults) {
    assert.equal(raw.result.resultType, 'complete');
    assert.equal(raw.result._meta?.[SERVER_INFO_KEY]?.name, 'labgate');
  }

  // A loop:// port: open, write, read back, close.
  const port = 'loop://v2';
  const opened = await callOk(client, 'open_port', { port_name: port, baud_rate: 115200, terminator: '\n' });
  assert.equal(opened.status, 'opened');
  assert.equal(opened.settings.baud_rate, 115200);
  const written = await callOk(client, 'write', { port_name: port, data: 'MEAS:VOLT?' });
  assert.equal(written.bytes_written, 11, 'the terminator is appended');
  const read = await callOk(client, 'read', { port_name: port });
  assert.equal(read.data, 'MEAS:VOLT?');
  assert.notEqual(read.timed_out, true);
  // wait_for: the loopback's "boot log" ends in a prompt; the earliest pattern wins.
  await callOk(client, 'write', { port_name: port, data: 'U-Boot 2024.1\nlogin: ' });
  const waited = await callOk(client, 'wait_for', { port_name: port, patterns: ['Password:', 'login: '], timeout_ms: 2000 });
  assert.equal(waited.matched, true);
  assert.equal(waited.pattern_index, 1);
  assert.equal(waited.before, 'U-Boot 2024.1\n');
  await callOk(client, 'close', { port_name: port });
  const afterClose = await client.callTool({ name: 'read', arguments: { port_name: port } });
  assert.equal(afterClose.isError, true, 'a closed port cannot be read');

  // Prompts.
  const { prompts } = await client.listPrompts();
  assert.deepEqual(prompts.map((p) => p.name).sort(), ['instrument_session', 'transcript_summary']);
  const guided = await client.getPrompt({ name: 'instrument_session', arguments: { port_name: 'loop://v2', baud_rate: '115200' } });
  assert.match(guided.messages[0].content.text, /open_port .*loop:\/\/v2.*115200/);
  const summary = await client.getPrompt({ name: 'transcript_summary', arguments: { session_id: session.id } });
  assert.equal(summary.messages[1].content.type, 'resource');
  assert.match(summary.messages[1].content.resource.text, /ACME,PSU,1,2/);

  // Resources.
  const uri = `labgate://sessions/${session.id}`;
  const { resources } = await client.listResources();
  assert.ok(resources.some((r) => r.uri === 'labgate://sessions'));
  assert.ok(resources.some((r) => r.uri === uri), `resources/list lacks ${uri}`);
  const contents = await client.readResource({ uri });
  assert.equal(contents.contents[0].uri, uri);
  const transcript = JSON.parse(contents.contents[0].text);
  assert.equal(transcript.export.session.id, session.id);
  assert.equal(transcript.export.messages.length, 2);

  // A transcript subscription through subscriptions/listen.
  const updates = [];
  let heard;
  const updated = new Promise((resolve) => { heard = resolve; });
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    updates.push(n.params.uri);
    if (n.params.uri === uri) heard(n);
  });
  const subscription = await client.listen({ resourceSubscriptions: [uri] });
  assert.deepEqual(subscription.honoredFilter.resourceSubscriptions, [uri]);
  const listenRequest = wire.sent.find((m) => m.method === 'subscriptions/listen');
  assert.deepEqual(listenRequest.params.notifications, { resourceSubscriptions: [uri] });
  const ack = wire.received.find((m) => m.method === 'notifications/subscriptions/acknowledged');
  assert.equal(ack.params._meta[SUBSCRIPTION_ID_KEY], listenRequest.id);

  await callOk(client, 'append_message', { session_id: session.id, content: 'OUTP ON' });
  const notification = await within(updated, 10000, `notifications/resources/updated for ${uri}`);
  assert.equal(notification.params.uri, uri);
  const rawNote = wire.received.find((m) => m.method === 'notifications/resources/updated' && m.params.uri === uri);
  assert.equal(rawNote.params._meta[SUBSCRIPTION_ID_KEY], listenRequest.id, 'tagged with the listen request id');
  const reread = JSON.parse((await client.readResource({ uri })).contents[0].text);
  assert.equal(reread.export.messages.at(-1).content, 'OUTP ON');
  await subscription.close();
  assert.equal(await subscription.closed, 'local');
  assertModernEra(conn);

  // -32602 errors carry data.field.
  const unknownPrompt = await protocolError(client.getPrompt({ name: 'no_such_prompt', arguments: {} }));
  assert.equal(unknownPrompt.code, -32602);
  assert.equal(unknownPrompt.data?.field, 'name');
  const unknownTool = await protocolError(client.callTool({ name: 'no_such_tool', arguments: {} }));
  assert.equal(unknownTool.code, -32602);
  assert.equal(unknownTool.data?.field, 'name');
  const nameless = await protocolError(client.getPrompt({}));
  if (conn.kind === 'stdio') {
    assert.equal(nameless.code, -32602);
    assert.equal(nameless.data?.field, 'name');
  } else {
    // Over HTTP the missing Mcp-Name header is caught first (400 + -32020).
    assert.equal(nameless.code, -32020);
  }
  // Resource not found is -32602 with data {uri} in 2026-07-28 (no -32002).
  const missing = await protocolError(client.readResource({ uri: 'labgate://sessions/no-such-session' }));
  assert.equal(missing.code, -32602);
  assert.deepEqual(missing.data, { uri: 'labgate://sessions/no-such-session' });
}

for (const kind of ['stdio', 'http']) {
  for (const mode of ['pinned', 'auto']) {
    test(`v2 client over ${kind}, ${mode === 'pinned' ? 'pinned to 2026-07-28' : 'auto mode'}: tools, ports, prompts, resources, subscription`, async () => {
      const conn = await connect[kind](mode);
      try {
        await exerciseEverything(conn);
      } finally {
        await conn.close();
      }
    });
  }
}

test('two v2 clients over HTTP: a listener hears another client\'s append', async () => {
  const watcher = await connectV2Http(gateway.url, { mode: 'auto', name: 'watcher' });
  const writer = await connectV2Http(gateway.url, { mode: 'pinned', name: 'writer' });
  try {
    const { session } = await callOk(writer.client, 'create_session', { device_id: 'watched-v2' });
    const uri = `labgate://sessions/${session.id}`;
    const updated = new Promise((resolve) => {
      watcher.client.setNotificationHandler('notifications/resources/updated', (n) => { if (n.params.uri === uri) resolve(n); });
    });
    const subscription = await watcher.client.listen({ resourceSubscriptions: [uri] });
    await callOk(writer.client, 'append_message', { session_id: session.id, content: 'hello watcher' });
    assert.equal((await within(updated, 10000, 'the update')).params.uri, uri);
    const read = await watcher.client.readResource({ uri });
    assert.match(read.contents[0].text, /hello watcher/);
    await subscription.close();
  } finally {
    await watcher.close();
    await writer.close();
  }
});

// Input requests: with --conformance-fixtures, a tool answers input_required with an
// elicitation; the v2 client fulfils it through its elicitation/create handler and
// retries with inputResponses + requestState, all inside one callTool().
for (const kind of ['stdio', 'http']) {
  test(`v2 client over ${kind}: an input_required elicitation is fulfilled by the client's handler`, async () => {
    const httpGateway = kind === 'http' ? await startHttpGateway(['--conformance-fixtures']) : undefined;
    const elicited = [];
    let conn;
    try {
      conn = await connect[kind]('pinned', {
        args: ['--conformance-fixtures'],
        url: httpGateway?.url,
        capabilities: { elicitation: { form: {} } },
        setup: (client) => client.setRequestHandler('elicitation/create', async (request) => {
          elicited.push(request.params);
          return { action: 'accept', content: { name: 'Ada' } };
        }),
      });
      const result = await conn.client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} });
      assert.equal(elicited.length, 1);
      assert.equal(elicited[0].message, 'What is your name?');
      assert.deepEqual(result.content, [{ type: 'text', text: 'Hello, Ada!' }]);
      const rounds = conn.wire.responsesTo('tools/call', 'test_input_required_result_elicitation');
      assert.equal(rounds.length, 2);
      assert.equal(rounds[0].result.resultType, 'input_required');
      assert.equal(typeof rounds[0].result.requestState, 'string');
      assert.equal(rounds[0].result.ttlMs, undefined, 'input_required results carry no cache hints');
      assert.equal(rounds[1].result.resultType, 'complete');
      const retry = conn.wire.sent.filter((m) => m.params?.name === 'test_input_required_result_elicitation').at(-1);
      assert.equal(retry.params.requestState, rounds[0].result.requestState, 'requestState echoed byte for byte');
      assert.deepEqual(Object.values(retry.params.inputResponses), [{ action: 'accept', content: { name: 'Ada' } }]);
    } finally {
      await conn?.close();
      await httpGateway?.stop();
    }
  });
}

test('every -32602 carries data.field: prompts/get with a required argument missing', async () => {
  const conn = await connectV2Stdio([], { mode: 'pinned' });
  try {
    const error = await protocolError(conn.client.getPrompt({ name: 'instrument_session', arguments: {} }));
    assert.equal(error.code, -32602);
    assert.match(error.message, /port_name/);
    assert.equal(error.data?.field, 'arguments.port_name', JSON.stringify(error.data));
  } finally {
    await conn.close();
  }
});
