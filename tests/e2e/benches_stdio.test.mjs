// Two benches behind one gateway, through the official SDK client over stdio: two real
// labgate-serial processes named with --serial-addr NAME=HOST:PORT. The SDK checks each
// structured result against the tool's outputSchema, so the merged listing must fit it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIN, tempDir, removeDir, startService, connectStdio, callOk } from './lib/harness.mjs';

test('ports route by bench, list_ports merges benches, a dead bench is listed and the other works', async () => {
  const dataDir = tempDir();
  const bench1 = await startService(BIN.serial);
  const bench2 = await startService(BIN.serial);
  const { client } = await connectStdio(['--data-dir', dataDir, '--call-timeout-ms', '3000',
    '--serial-addr', `lab-a=${bench1.address}`, '--serial-addr', `lab-b=${bench2.address}`]);
  try {
    for (const bench of ['lab-a', 'lab-b']) {
      const opened = await callOk(client, 'open_port', { port_name: `${bench}:loop://sdk`, baud_rate: 9600 });
      assert.equal(opened.port_name, `${bench}:loop://sdk`);
      await callOk(client, 'write', { port_name: `${bench}:loop://sdk`, data: `hello ${bench}` });
    }
    for (const bench of ['lab-a', 'lab-b']) {
      const read = await callOk(client, 'read', { port_name: `${bench}:loop://sdk`, timeout_ms: 500 });
      assert.equal(read.data, `hello ${bench}`, 'each bench has its own loop');
    }
    const listed = await callOk(client, 'list_ports');
    const names = listed.ports.map((p) => p.port_name);
    assert.ok(names.includes('lab-a:loop://sdk') && names.includes('lab-b:loop://sdk'), names.join());
    assert.ok(names.every((n) => n.startsWith('lab-a:') || n.startsWith('lab-b:')), names.join());

    const unknown = await client.callTool({ name: 'write', arguments: { port_name: 'lab-c:loop://sdk', data: 'x' } });
    assert.equal(unknown.isError, true);
    assert.match(unknown.content[0].text, /unknown bench 'lab-c'/);

    await bench2.stop('SIGKILL');
    const partial = await callOk(client, 'list_ports');
    assert.deepEqual(partial.unreachable_benches.map((u) => u.bench), ['lab-b']);
    assert.ok(partial.ports.every((p) => p.port_name.startsWith('lab-a:')));
    const dead = await client.callTool({ name: 'read', arguments: { port_name: 'lab-b:loop://sdk' } });
    assert.equal(dead.isError, true);
    assert.equal(dead.content[0].text, `UNAVAILABLE: serial service at ${bench2.address} is not reachable`);
    await callOk(client, 'write', { port_name: 'lab-a:loop://sdk', data: 'still here' });
    const read = await callOk(client, 'read', { port_name: 'lab-a:loop://sdk', timeout_ms: 500 });
    assert.equal(read.data, 'still here');
  } finally {
    await client.close();
    await bench1.stop();
    await bench2.stop();
    removeDir(dataDir);
  }
});
