// Reading the console's API as its page does: JSON GETs and SSE streams over fetch.
export const encodePort = (name) => encodeURIComponent(name);

// GET `path`; returns { status, headers, json, text }.
export async function getJson(base, path, { token, headers = {}, method = 'GET' } = {}) {
  const response = await fetch(base + path, {
    method,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
  });
  const text = await response.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: response.status, headers: response.headers, json, text };
}

// Opens an SSE endpoint; `next(predicate, what)` resolves with the first event (parsed
// JSON) that satisfies it, failing after `timeoutMs`. `close()` leaves the stream.
export async function openEvents(base, path, { token } = {}) {
  const controller = new AbortController();
  const response = await fetch(base + path, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
    signal: controller.signal,
  });
  if (response.status !== 200) {
    const text = await response.text();
    return { status: response.status, text, close() {} };
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const events = [];
  let buffer = '';
  let ended = false;
  const waiters = new Set();
  (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trimStart()).join('\n');
          if (data) events.push(JSON.parse(data));
        }
        for (const waiter of waiters) waiter();
      }
    } catch { /* aborted */ }
    ended = true;
    for (const waiter of waiters) waiter();
  })();
  return {
    status: 200,
    headers: response.headers,
    events,
    get ended() { return ended; },
    next(predicate, what, timeoutMs = 15000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(predicate);
          if (found) { cleanup(); resolve(found); return; }
          if (ended) { cleanup(); reject(new Error(`stream ended before ${what}: ${JSON.stringify(events)}`)); }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${what}: ${JSON.stringify(events)}`));
        }, timeoutMs);
        const cleanup = () => { clearTimeout(timer); waiters.delete(check); };
        waiters.add(check);
        check();
      });
    },
    close() { controller.abort(); },
  };
}
