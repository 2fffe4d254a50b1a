// The README's first worked example, exactly: labgate with the shipped example profile and
// instruments file (examples/instruments/), a power supply simulated from its profile
// (sim://SIM-PSU), driven by the official v1 SDK client with no hardware and no root.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callOk } from './lib/harness.mjs';
import { callError, embeddedGateway } from './lib/serial_helpers.mjs';

const EXAMPLES = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'examples', 'instruments');

test('README: a simulated supply by name, its readings, and its limits', async () => {
  const gateway = await embeddedGateway(['--profiles', join(EXAMPLES, 'profiles'),
    '--instruments', join(EXAMPLES, 'instruments.json')]);
  const { client } = gateway;
  try {
    const { instruments } = await callOk(client, 'list_instruments', {});
    assert.deepEqual(instruments.map((i) => [i.name, i.model, i.present, i.port]),
      [['psu-sim', 'SIM-PSU', true, 'sim://SIM-PSU']]);
    const opened = await callOk(client, 'open_port', { instrument: 'psu-sim' });
    assert.equal(opened.identity, 'LABGATE,SIM-PSU,SIM0001,1.0');
    await callOk(client, 'write', { port_name: 'psu-sim', data: 'VOLT 4.9' });
    const measured = await callOk(client, 'query', { port_name: 'psu-sim', data: 'MEAS:VOLT?' });
    assert.ok(Math.abs(Number(measured.data) - 4.9) <= 0.002, measured.data);
    assert.equal(measured.readings[0].name, 'voltage');
    assert.equal(measured.readings[0].unit, 'V');
    for (const data of ['VOLT 12', 'volt 12000mV', 'APPL CH1,12,0.5']) {
      assert.match(await callError(client, 'write', { port_name: 'psu-sim', data }),
        /PERMISSION_DENIED: 12 V exceeds max-voltage \(5 V\) on psu-sim channel 1/, data);
    }
    assert.match(await callError(client, 'write', { port_name: 'psu-sim', data: 'CURR 0.8' }),
      /not sent: the instrument's limit 'max-current' needs a person's approval, and this MCP client does not support elicitation/);
    const errors = await callOk(client, 'query', { port_name: 'psu-sim', data: 'SYST:ERR?' });
    assert.equal(errors.data, '0,"No error"', 'nothing refused reached the simulation');
    await callOk(client, 'write', { port_name: 'psu-sim', data: 'OUTP ON' });
    assert.equal((await callOk(client, 'query', { port_name: 'psu-sim', data: 'OUTP?' })).data, '1');
    const ran = await callOk(client, 'run_sequence', { port_name: 'psu-sim', name: 'safe' });
    assert.equal(ran.completed, true);
    assert.equal((await callOk(client, 'query', { port_name: 'psu-sim', data: 'OUTP?' })).data, '0',
      "the profile's safe sequence turned the output off");
  } finally {
    await gateway.close();
  }
});
