// Hand-over latency of bench reservations (issue 32's target: the next holder is granted within
// 50 ms of a release, p99). A real split deployment on 127.0.0.1: one labgate-session, two
// labgate-serial benches (lab-a, lab-b, one supply each), and two labgate HTTP replicas. Two
// principals, alice on replica A and bob on replica B, pass each supply back and forth: the
// holder releases through its replica while the other waits inside a 2025-era reserve on its
// own; the time from sending the release to the waiter's reserve result is one hand-over.
//
//   LABGATE_BUILD=build node bench/reservations/handover_bench.mjs [ROUNDS]
// (run from the repository root; the MCP SDK comes from tests/e2e/node_modules).
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRequire } from 'node:module';

const root = resolve(new URL('../..', import.meta.url).pathname);
const require = createRequire(join(root, 'tests/e2e/package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { CallToolResultSchema } = require('@modelcontextprotocol/sdk/types.js');

const build = resolve(root, process.env.LABGATE_BUILD ?? 'build');
const bin = {
  labgate: join(build, 'gateway/labgate'),
  session: join(build, 'session-service/labgate-session'),
  serial: join(build, 'serial-service/labgate-serial'),
};
const rounds = Number(process.argv[2] ?? 200);
const dir = mkdtempSync(join(tmpdir(), 'labgate-handover-'));
const children = [];

async function start(binary, args, portFlag = '--port-file') {
  const portFile = join(dir, `port-${children.length}`);
  const child = spawn(binary, [...args, portFlag, portFile], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  children.push(child);
  for (let i = 0; i < 500 && (!existsSync(portFile) || readFileSync(portFile, 'utf8').trim() === ''); i++) {
    if (child.exitCode !== null) throw new Error(`${binary} exited: ${stderr}`);
    await sleep(20);
  }
  return Number(readFileSync(portFile, 'utf8').trim());
}

async function connect(url, token) {
  const transport = new StreamableHTTPClientTransport(new URL(url),
    { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'handover-bench', version: '1' });
  await client.connect(transport);
  return client;
}

async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 120000 });
  if (result.isError) throw new Error(`${name}: ${result.content?.[0]?.text}`);
  return result.structuredContent;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

try {
  writeFileSync(join(dir, 'gateway.token'), `gw-${process.pid}-${Date.now()}-handover\n`);
  writeFileSync(join(dir, 'tokens'), 'alice alice-bench-token\nbob bob-bench-token\n');
  mkdirSync(join(dir, 'profiles'));
  writeFileSync(join(dir, 'profiles/psu.json'),
    JSON.stringify({ model: 'LOOP-PSU', tags: ['psu'], settings: { baud_rate: 9600 } }));
  writeFileSync(join(dir, 'instruments.json'), JSON.stringify({
    instruments: [{ name: 'psu-1', profile: 'LOOP-PSU', match: { port_name: 'loop://psu-1' } }],
  }));
  const token = ['--gateway-token-file', join(dir, 'gateway.token')];
  const session = await start(bin.session, ['--listen', '127.0.0.1:0', '--data-dir', join(dir, 'data'),
    '--log-level', 'warning', ...token]);
  const benches = [];
  for (const name of ['lab-a', 'lab-b']) {
    const port = await start(bin.serial, ['--listen', '127.0.0.1:0', '--session-addr', `127.0.0.1:${session}`,
      '--publish-inventory', '--bench', name, '--profiles', join(dir, 'profiles'),
      '--instruments', join(dir, 'instruments.json'), '--log-level', 'warning', ...token]);
    benches.push(`${name}=127.0.0.1:${port}`);
  }
  const replicaArgs = ['--http', '127.0.0.1:0', '--session-addr', `127.0.0.1:${session}`,
    ...benches.flatMap((b) => ['--serial-addr', b]), '--auth-token-file', join(dir, 'tokens'),
    '--log-level', 'warning', ...token];
  const replicaA = await start(bin.labgate, replicaArgs, '--http-port-file');
  const replicaB = await start(bin.labgate, replicaArgs, '--http-port-file');
  const alice = await connect(`http://127.0.0.1:${replicaA}/mcp`, 'alice-bench-token');
  const bob = await connect(`http://127.0.0.1:${replicaB}/mcp`, 'bob-bench-token');
  const supplies = ['lab-a:psu-1', 'lab-b:psu-1'];
  for (let i = 0; i < 200; i++) {
    const listed = await call(alice, 'list_reservations', {});
    if (supplies.every((s) => listed.reservables.some((r) => r.name === s))) break;
    await sleep(50);
  }

  // Each supply starts with alice; then the holder and the waiter swap every round.
  const holding = new Map();
  for (const supply of supplies) holding.set(supply, { who: alice, id: (await call(alice, 'reserve', { targets: [supply] })).id });
  const latencies = [];
  for (let round = 0; round < rounds; round++) {
    const supply = supplies[round % supplies.length];
    const held = holding.get(supply);
    const waiter = held.who === alice ? bob : alice;
    const granted = call(waiter, 'reserve', { targets: [supply], wait_s: 60 });
    // The waiter is in the queue once the holder's list shows it.
    for (;;) {
      const listed = await call(held.who, 'list_reservations', {});
      if (listed.reservations.some((r) => r.state === 'waiting' && r.targets.includes(supply))) break;
      await sleep(2);
    }
    const released = performance.now();
    await call(held.who, 'release_reservation', { id: held.id });
    const grant = await granted;
    latencies.push(performance.now() - released);
    if (grant.state !== 'granted') throw new Error(`round ${round}: ${JSON.stringify(grant)}`);
    holding.set(supply, { who: waiter, id: grant.id });
  }
  latencies.sort((a, b) => a - b);
  const fmt = (ms) => `${ms.toFixed(1)} ms`;
  console.log(`hand-overs: ${latencies.length} across 2 replicas and 2 benches`);
  console.log(`p50 ${fmt(percentile(latencies, 50))}  p90 ${fmt(percentile(latencies, 90))}  ` +
    `p99 ${fmt(percentile(latencies, 99))}  max ${fmt(latencies.at(-1))}`);
  await alice.close();
  await bob.close();
} finally {
  for (const child of children.reverse()) child.kill('SIGTERM');
  await sleep(300);
  rmSync(dir, { recursive: true, force: true });
}
