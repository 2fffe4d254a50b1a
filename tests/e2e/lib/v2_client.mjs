// Helpers for end-to-end tests with the official v2 MCP TypeScript SDK client
// (@modelcontextprotocol/client), which speaks the stateless 2026-07-28 era:
// connections over stdio and Streamable HTTP in pinned or `auto` negotiation mode,
// a wire tap that records every JSON-RPC message (and, over HTTP, every request's
// headers), and raw stateless POSTs with the 2026 headers and `_meta`.
import { Client, StreamableHTTPClientTransport, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { BIN, tempDir, removeDir, gatewayArgs } from './harness.mjs';

export const MODERN = '2026-07-28';
export const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const SUBSCRIPTION_ID_KEY = 'io.modelcontextprotocol/subscriptionId';
export const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

// 'pinned' → { pin: '2026-07-28' }; 'auto' → 'auto' (probe with server/discover).
export function negotiation(mode) {
  if (mode === 'auto') return { mode: 'auto' };
  if (mode === 'pinned') return { mode: { pin: MODERN } };
  throw new Error(`unknown negotiation mode ${mode}`);
}

// Records what goes over a transport. `sent`/`received` hold JSON-RPC messages;
// `http` holds { method, body, headers (request), status, responseHeaders } per fetch.
// Call before connect() so the send wrapper sees every message; the receive side is
// hooked by `attachReceive` after connect() (the Client installs onmessage there).
function tapSend(transport) {
  const wire = { sent: [], received: [], http: [] };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    wire.sent.push(structuredClone(message));
    return send(message, options);
  };
  wire.attachReceive = () => {
    const onmessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      wire.received.push(structuredClone(message));
      return onmessage?.(message, extra);
    };
  };
  // The raw result of the response to a request id (results are decoded, and
  // fields such as resultType dropped, before the client returns them).
  wire.response = (id) => wire.received.find((m) => m.id === id && ('result' in m || 'error' in m));
  // The raw responses to every sent request with this method (and tool name).
  wire.responsesTo = (method, name) => wire.sent
    .filter((m) => m.method === method && m.id !== undefined && (name === undefined || m.params?.name === name))
    .map((m) => wire.response(m.id))
    .filter(Boolean);
  wire.methodsSent = () => wire.sent.map((m) => m.method).filter(Boolean);
  return wire;
}

function newClient({ mode, name, capabilities }) {
  return new Client({ name, version: '1.0.0' }, { capabilities, versionNegotiation: negotiation(mode) });
}

// labgate spawned over stdio by the v2 client's StdioClientTransport.
// With mode 'auto' the client probes on a short-lived sibling process first.
export async function connectV2Stdio(args = [], { mode = 'pinned', name = 'labgate-v2-e2e', capabilities = {}, setup } = {}) {
  const dataDir = tempDir('labgate-v2-');
  const transport = new StdioClientTransport({
    command: BIN.labgate,
    args: await gatewayArgs(['--data-dir', dataDir, ...args]),
    env: { ...process.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => { stderr += chunk; });
  const wire = tapSend(transport);
  const client = newClient({ mode, name, capabilities });
  setup?.(client);
  await client.connect(transport);
  wire.attachReceive();
  return {
    client, transport, wire, dataDir, kind: 'stdio', stderr: () => stderr,
    async close() {
      await client.close();
      removeDir(dataDir);
    },
  };
}

// The v2 client over Streamable HTTP; every fetch is recorded in wire.http.
export async function connectV2Http(url, { mode = 'pinned', name = 'labgate-v2-http-e2e', capabilities = {}, setup, headers = {} } = {}) {
  let wire;
  const recordingFetch = async (input, init = {}) => {
    if (Object.keys(headers).length > 0) {
      const merged = new Headers(init.headers);
      for (const [key, value] of Object.entries(headers)) merged.set(key, value);
      init = { ...init, headers: merged };
    }
    const response = await fetch(input, init);
    let body;
    try { body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined; } catch { body = undefined; }
    wire.http.push({
      method: init.method ?? 'GET',
      body,
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      status: response.status,
      responseHeaders: Object.fromEntries(response.headers.entries()),
    });
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch });
  wire = tapSend(transport);
  const client = newClient({ mode, name, capabilities });
  setup?.(client);
  await client.connect(transport);
  wire.attachReceive();
  return {
    client, transport, wire, kind: 'http',
    async close() { await client.close(); },
  };
}

export async function callOk(client, name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

// Awaits `promise` that must reject with a JSON-RPC error; returns the ProtocolError.
export async function protocolError(promise) {
  try {
    const value = await promise;
    throw new Error(`expected a JSON-RPC error, got ${JSON.stringify(value)}`);
  } catch (error) {
    if (!(error instanceof ProtocolError)) throw error;
    return error;
  }
}

// Rejects after `ms` with `what` unless `promise` settles first (a safety net, not an assertion).
export function within(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// --- Raw stateless HTTP (no SDK) -----------------------------------------------------

const NAMED = new Set(['tools/call', 'resources/read', 'prompts/get']);

// The `_meta` a 2026-07-28 request must carry.
export function statelessMeta(capabilities = {}) {
  return {
    [PROTOCOL_VERSION_KEY]: MODERN,
    [CLIENT_CAPABILITIES_KEY]: capabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'raw-stateless', version: '1' },
  };
}

// Parses a JSON body or an SSE body into the list of JSON-RPC messages it holds.
export function parseBody(contentType, text) {
  if ((contentType ?? '').includes('text/event-stream')) {
    const messages = [];
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
      if (data) messages.push(JSON.parse(data));
    }
    return messages;
  }
  return text ? [JSON.parse(text)] : [];
}

// One stateless JSON-RPC request as a raw POST with MCP-Protocol-Version, Mcp-Method
// and (for tools/call, resources/read, prompts/get) Mcp-Name. Returns
// { status, headers, messages, response } where `response` is the reply to `id`.
let rawId = 0;
export async function statelessRequest(url, method, params = {}, { id = `raw-${++rawId}`, capabilities = {}, headers = {} } = {}) {
  const body = { jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...statelessMeta(capabilities), ...(params._meta ?? {}) } } };
  const name = method === 'resources/read' ? params.uri : params.name;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': MODERN,
      'Mcp-Method': method,
      ...(NAMED.has(method) && name !== undefined ? { 'Mcp-Name': name } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const messages = parseBody(response.headers.get('content-type'), text);
  return {
    status: response.status, headers: response.headers, text, messages,
    response: messages.find((m) => m.id === id && ('result' in m || 'error' in m)),
  };
}

// A raw stateless tools/call that must succeed; returns its structuredContent.
export async function statelessCallOk(url, name, args = {}) {
  const { status, response, text } = await statelessRequest(url, 'tools/call', { name, arguments: args });
  if (status !== 200 || !response?.result) throw new Error(`${name}: HTTP ${status} ${text}`);
  if (response.result.isError) throw new Error(`${name} failed: ${JSON.stringify(response.result.content)}`);
  return response.result.structuredContent;
}
