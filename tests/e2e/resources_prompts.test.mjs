// labgate's own resources, prompts, completion and logging through the official SDK
// client over stdio.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { tempDir, removeDir, connectStdio, callOk } from './lib/harness.mjs';

test('resources, templates, reads, subscriptions, prompts and completion', async () => {
  const dataDir = tempDir();
  const { client } = await connectStdio(['--data-dir', dataDir]);
  try {
    const caps = client.getServerCapabilities();
    assert.equal(caps.resources.subscribe, true);
    assert.ok(caps.prompts && caps.logging && caps.completions);

    const { session } = await callOk(client, 'create_session', { device_id: 'dmm-7' });
    await callOk(client, 'append_message', { session_id: session.id, content: 'MEAS:VOLT?', direction: 'tx' });

    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    assert.ok(uris.includes('labgate://sessions') && uris.includes('labgate://ports'));
    assert.ok(uris.includes(`labgate://sessions/${session.id}`));
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate).sort(),
      ['labgate://actions/{action}', 'labgate://ports/{port_name}', 'labgate://reservations/{id}',
        'labgate://sessions/{session_id}']);

    const transcript = await client.readResource({ uri: `labgate://sessions/${session.id}` });
    const body = JSON.parse(transcript.contents[0].text);
    assert.equal(transcript.contents[0].mimeType, 'application/json');
    assert.equal(body.export.session.device_id, 'dmm-7');
    assert.equal(body.export.messages[0].content, 'MEAS:VOLT?');
    const contract = JSON.parse((await client.readResource({ uri: 'labgate://actions/supportive_reply' })).contents[0].text);
    assert.deepEqual(contract.input_schema.required, ['message', 'risk_level']);
    const ports = JSON.parse((await client.readResource({ uri: 'labgate://ports' })).contents[0].text);
    assert.ok(Array.isArray(ports.ports));
    await assert.rejects(client.readResource({ uri: 'labgate://sessions/no-such-session' }), /-32002|not found/i);
    await assert.rejects(client.readResource({ uri: 'nowhere://x' }), /-32002/);

    // Subscribing to a transcript: an append sends notifications/resources/updated.
    const updated = new Promise((resolve) => client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)));
    await client.subscribeResource({ uri: `labgate://sessions/${session.id}` });
    await callOk(client, 'append_message', { session_id: session.id, content: '+4.99812E+00', direction: 'rx' });
    assert.equal(await Promise.race([updated, new Promise((_, r) => setTimeout(() => r(new Error('no update')), 10000))]),
      `labgate://sessions/${session.id}`);
    await client.unsubscribeResource({ uri: `labgate://sessions/${session.id}` });

    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name).sort(), ['instrument_session', 'transcript_summary']);
    const guided = await client.getPrompt({ name: 'instrument_session', arguments: { port_name: '/dev/ttyUSB0', baud_rate: '115200' } });
    assert.match(guided.messages[0].content.text, /open_port .*\/dev\/ttyUSB0.*115200/);
    assert.match(guided.messages[0].content.text, /\*IDN\?/);
    await assert.rejects(client.getPrompt({ name: 'instrument_session', arguments: {} }), /-32602|port_name/);
    await assert.rejects(client.getPrompt({ name: 'instrument_session', arguments: { port_name: 'x', baud_rate: 'fast' } }), /baud_rate/);
    const summary = await client.getPrompt({ name: 'transcript_summary', arguments: { session_id: session.id } });
    assert.equal(summary.messages[1].content.type, 'resource');
    assert.match(summary.messages[1].content.resource.text, /MEAS:VOLT\?/);
    await assert.rejects(client.getPrompt({ name: 'transcript_summary', arguments: { session_id: 'nope' } }), /no session/);
    await assert.rejects(client.getPrompt({ name: 'no_such_prompt', arguments: {} }), /-32602/);

    const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'transcript_summary' },
      argument: { name: 'session_id', value: session.id.slice(0, 6) } });
    assert.ok(completion.completion.values.includes(session.id));
    const rates = await client.complete({ ref: { type: 'ref/prompt', name: 'instrument_session' },
      argument: { name: 'baud_rate', value: '11' } });
    assert.deepEqual(rates.completion.values, ['115200']);
    const templated = await client.complete({ ref: { type: 'ref/resource', uri: 'labgate://actions/{action}' },
      argument: { name: 'action', value: 'supp' } });
    assert.deepEqual(templated.completion.values, ['supportive_reply']);

    await client.setLoggingLevel('warning');
    await assert.rejects(client.setLoggingLevel('loud'), /-32602/);
  } finally {
    await client.close();
    removeDir(dataDir);
  }
});
