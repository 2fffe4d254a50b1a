// An HTTP gateway with a bench to reserve: one named supply (psu-1, on loop://psu-1, profile
// LOOP-PSU) and named principals, each with the token NAME-token-N (alice-token-1, ...).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, removeDir } from './harness.mjs';
import { startHttpGateway } from './http_gateway.mjs';

export async function startBenchGateway(principals = ['alice', 'bob', 'carol']) {
  const dir = tempDir();
  writeFileSync(join(dir, 'tokens'), principals.map((name, i) => `${name} ${name}-token-${i + 1}\n`).join(''));
  mkdirSync(join(dir, 'profiles'));
  writeFileSync(join(dir, 'profiles', 'psu.json'),
    JSON.stringify({ model: 'LOOP-PSU', tags: ['psu'], settings: { baud_rate: 9600, terminator: '\n' } }));
  writeFileSync(join(dir, 'instruments.json'), JSON.stringify({
    instruments: [{ name: 'psu-1', profile: 'LOOP-PSU', match: { port_name: 'loop://psu-1' } }],
  }));
  const gateway = await startHttpGateway(['--auth-token-file', join(dir, 'tokens'),
    '--profiles', join(dir, 'profiles'), '--instruments', join(dir, 'instruments.json')]);
  return {
    gateway,
    async stop() { await gateway.stop(); removeDir(dir); },
  };
}
