#!/usr/bin/env node
// Drives a running axgate through the official TypeScript MCP SDK (1.x), as a real client would.
//
// Usage: CLIENT_CHECK_TOKEN=<bearer token> node client_check.mjs http://127.0.0.1:PORT/mcp
//
// Against a fresh server with the demo backend and a static bearer token (tests/clients.rs
// starts one per run, behind a proxy that breaks one response stream), over
// StreamableHTTPClientTransport with `Authorization: Bearer` in requestInit, it: initializes,
// subscribes to axgate://app/Form/state, lists the tools, presses the Form app's "Subscribe"
// check box and reads the effect back, waits for the resource update and the per-call log
// records, runs a `wait_for` whose stream the proxy cuts after its first progress notification
// (the SDK reconnects with Last-Event-ID by itself — `_handleSseStream` schedules it once the
// stream carried an event id — and reports each id through `onresumptiontoken`), ends the
// session with terminateSession() (DELETE) and checks that the server answers 404 for it, and
// finally connects with a wrong and with no token and records how the SDK fails.
//
// Every step prints one JSON line {"step": ..., ...}; tests/clients.rs asserts on those fields.
// A failure prints {"step": "fail", "error": ...} and exits 1; success ends with
// {"step": "pass"}. An error the SDK reports through onerror is a failure too, except the
// disconnect the proxy causes during the resume step (reported there).

import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { CheckFailed, check, report, verdict } from './verdict.mjs';

const APP = 'Form';
const CHECK_BOX = 'window[0]/check_box[0]';
const TITLE = 'Subscribe';
const STATE_URI = 'axgate://app/Form/state';
const PROTOCOL = '2025-11-25';
// The bearer token comes from the environment, never from the command line (ps shows that).
const TOKEN_ENV = 'CLIENT_CHECK_TOKEN';
const WAIT_MS = 15_000;
const OVERALL_MS = 150_000;
const AUTH_ATTEMPT_MS = 30_000;
const CALL_TIMEOUT_MS = 90_000;


function textOf(result) {
  return (result.content ?? []).map((c) => c.text ?? '').join(' ');
}

function structured(result, tool) {
  check(!result.isError, `${tool} returned isError: ${textOf(result)}`);
  const sc = result.structuredContent;
  check(sc && typeof sc === 'object', `${tool} has no structuredContent`);
  return sc;
}

function checkBoxValue(result) {
  const nodes = structured(result, 'get_tree').nodes ?? [];
  const boxes = nodes.filter((n) => n.role === 'check_box' && n.title === TITLE);
  check(boxes.length === 1, `get_tree: expected one check_box titled "${TITLE}", found ${boxes.length}`);
  check(boxes[0].path === CHECK_BOX, `check box path is ${JSON.stringify(boxes[0].path)}`);
  return boxes[0].value;
}

async function waitUntil(cond, what) {
  const deadline = Date.now() + WAIT_MS;
  while (!cond()) {
    if (Date.now() > deadline) throw new CheckFailed(`no ${what} within ${WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function sdkVersion() {
  const url = new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')).version;
}

/** A client and transport for `url`; `token` null sends no Authorization header. */
function connectTo(url, token, seen) {
  // The SDK's own fetch, watched: records the answer to DELETE.
  const watchedFetch = async (input, init) => {
    const response = await fetch(input, init);
    seen.statuses.push(response.status);
    if ((init?.method ?? 'GET').toUpperCase() === 'DELETE') seen.deleteStatus = response.status;
    return response;
  };
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: watchedFetch,
    requestInit: { headers },
  });
  const client = new Client({ name: 'axgate-client-check', version: '0.0.0' }, { capabilities: {} });
  client.onerror = (error) => {
    const text = `${error?.name ?? 'Error'}: ${error?.message ?? error}`;
    // close() aborts the GET stream if it is still open: our own doing, not a fault. The
    // disconnect the proxy causes is expected while the resume step runs.
    if (seen.closing && /AbortError/.test(text)) return;
    (seen.resuming ? seen.resumeErrors : seen.sdkErrors).push(text);
    console.error(`     sdk reported: ${text}`);
  };
  client.setNotificationHandler(LoggingMessageNotificationSchema, (note) => {
    const data = note.params.data && typeof note.params.data === 'object' ? note.params.data : {};
    seen.logRecords.push({ level: note.params.level, logger: note.params.logger, ...data });
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
    seen.updated.push(note.params.uri);
  });
  return { client, transport };
}

function newSeen() {
  return {
    deleteStatus: undefined,
    statuses: [],
    closing: false,
    resuming: false,
    sdkErrors: [],
    resumeErrors: [],
    logRecords: [],
    updated: [],
  };
}

async function press(client) {
  const acted = await client.callTool(
    { name: 'perform_action', arguments: { app: APP, target: CHECK_BOX, action: 'press' } },
    undefined,
    { timeout: CALL_TIMEOUT_MS },
  );
  const out = structured(acted, 'perform_action');
  check(out.verified === true, `perform_action not verified: ${JSON.stringify(out)}`);
  return out.element ?? {};
}

/** A wait_for that only ends when the check box is pressed back: the proxy cuts its stream
 * after the first progress notification, which is also when the press is sent. */
async function resumeStep(client, seen) {
  const progress = [];
  const tokens = [];
  let pressing;
  const started = Date.now();
  seen.resuming = true;
  const waited = await client.callTool(
    {
      name: 'wait_for',
      arguments: { app: APP, target: CHECK_BOX, condition: 'value_equals', value: 'false', timeout_ms: 60000 },
    },
    undefined,
    {
      timeout: CALL_TIMEOUT_MS,
      onprogress: (p) => {
        progress.push(p.progress);
        pressing ??= press(client);
      },
      onresumptiontoken: (token) => tokens.push(token),
    },
  );
  const out = structured(waited, 'wait_for');
  check(pressing !== undefined, 'wait_for returned without any progress notification');
  const pressed = await pressing;
  seen.resuming = false;
  report('resume', {
    satisfied: out.satisfied,
    actual: out.actual,
    progress: progress.length,
    pressed: pressed.value,
    seconds: (Date.now() - started) / 1000,
    resumption_tokens: tokens,
    sdk_reported: seen.resumeErrors,
  });
}

async function sessionSteps(url, token) {
  const seen = newSeen();
  const { client, transport } = connectTo(url, token, seen);
  await client.connect(transport);
  const info = client.getServerVersion();
  const sessionId = transport.sessionId;
  check(info, 'initialize: no serverInfo');
  report('initialize', {
    protocol: transport.protocolVersion,
    server: info.name,
    server_version: info.version,
    sdk: `@modelcontextprotocol/sdk ${sdkVersion()}`,
    session: sessionId !== undefined,
  });

  await client.setLoggingLevel('info');
  await client.subscribeResource({ uri: STATE_URI });
  report('subscribe', { uri: STATE_URI });

  const tools = await client.listTools();
  report('tools/list', { tools: tools.tools.map((t) => t.name).sort() });

  // listTools() above lets callTool validate structuredContent against each outputSchema.
  const before = checkBoxValue(await client.callTool({ name: 'get_tree', arguments: { app: APP, nodes: true } }));
  const element = await press(client);
  const after = checkBoxValue(await client.callTool({ name: 'get_tree', arguments: { app: APP, nodes: true } }));
  report('call', { before, pressed: element.value, after });

  await waitUntil(() => seen.updated.includes(STATE_URI), `notifications/resources/updated for ${STATE_URI}`);
  report('updated', { uris: [...new Set(seen.updated)].sort() });

  await resumeStep(client, seen);

  const toolCalls = () => seen.logRecords.filter((r) => r.event === 'tool_call');
  await waitUntil(() => toolCalls().length >= 5, 'tool_call log record for each of the 5 calls');
  // The press during the wait changed the state again: its update is the last message the
  // server sends. Leaving before it arrives races the SDK's shutdown.
  await waitUntil(() => seen.updated.length >= 2, "second resources/updated (after the resume step's press)");
  report('log', { tools: toolCalls().map((r) => r.tool), updates: seen.updated.length });

  await transport.terminateSession();
  check(transport.sessionId === undefined, 'terminateSession() left the session id in place');
  seen.closing = true;
  await client.close();
  report('end', { delete_status: seen.deleteStatus ?? null });
  check(seen.sdkErrors.length === 0, `the SDK reported errors: ${seen.sdkErrors.join(' | ')}`);

  const probe = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': PROTOCOL,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list' }),
  });
  await probe.body?.cancel();
  report('gone', { status: probe.status });
}

/** Connects with `token` (null: no Authorization header) and records how the SDK fails. */
async function refused(url, token) {
  const seen = newSeen();
  const { client, transport } = connectTo(url, token, seen);
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve('timeout'), AUTH_ATTEMPT_MS);
  });
  try {
    const outcome = await Promise.race([client.connect(transport), timeout]);
    const failure = outcome === 'timeout' ? `no failure within ${AUTH_ATTEMPT_MS / 1000} s` : 'connected';
    return { status: null, http: seen.statuses, error: failure };
  } catch (error) {
    const text = `${error?.name ?? 'Error'}: ${error?.message ?? error}`.slice(0, 300);
    return { status: error?.code ?? null, http: seen.statuses, error: text };
  } finally {
    clearTimeout(timer);
    seen.closing = true;
    await client.close().catch(() => {});
  }
}

async function run(url) {
  const token = process.env[TOKEN_ENV];
  check(token, `${TOKEN_ENV} is not set: tests/clients.rs passes the bearer token there`);
  await sessionSteps(url, token);
  const wrong = await refused(url, 'axg_wrong-token-for-tests-only-0123456789abcdefghij');
  const missing = await refused(url, null);
  report('auth', { wrong, missing });
}

process.exitCode = await verdict('client_check.mjs', run, OVERALL_MS);
// Nothing may keep the process alive past its verdict (an SSE reconnect timer, say).
process.exit(process.exitCode);
