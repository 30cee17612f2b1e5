#!/usr/bin/env node
// Drives a running axgate through the official TypeScript MCP SDK (1.x), as a real client would.
//
// Usage: node client_check.mjs http://127.0.0.1:PORT/mcp
//
// Against a fresh server with the demo backend (tests/clients.rs starts one per test), it:
// initializes a session, lists the tools, reads the Form app's tree, presses the "Subscribe"
// check box, reads the tree again, waits for the server's per-call log notifications, ends the
// session with transport.terminateSession() and close(), and checks that the server has
// forgotten the session.
//
// Prints one line per step. Exits 0 on success; 1 with a "FAIL ..." line otherwise. An error
// that the SDK reports through onerror along the way is a failure too.

import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const APP = 'Form';
const CHECK_BOX = 'window[0]/check_box[0]';
const TITLE = 'Subscribe';
// Each tools/call makes the server log one `tool_call` record at info level (src/mcp/server.rs).
const LOG_WAIT_MS = 10_000;
const OVERALL_MS = 90_000;
const FRESH_HINT =
  ' (the demo desktop is shared by every session of a server: run this against a fresh one)';

class CheckFailed extends Error {}

function step(name, detail) {
  console.log(`ok   ${name}: ${detail}`);
}

function check(cond, message) {
  if (!cond) throw new CheckFailed(message);
}

function textOf(result) {
  return (result.content ?? []).map((c) => c.text ?? '').join(' ');
}

function findCheckBox(result, when) {
  check(!result.isError, `get_tree (${when}) returned isError: ${textOf(result)}`);
  const sc = result.structuredContent;
  check(sc && typeof sc === 'object', `get_tree (${when}) has no structuredContent`);
  const nodes = sc.nodes;
  check(Array.isArray(nodes) && nodes.length > 0, `get_tree (${when}): structuredContent.nodes is empty`);
  check(sc.app === APP, `get_tree (${when}): app is ${JSON.stringify(sc.app)}, expected "${APP}"`);
  const boxes = nodes.filter((n) => n.role === 'check_box' && n.title === TITLE);
  check(
    boxes.length === 1,
    `get_tree (${when}): expected one check_box titled "${TITLE}", found ${boxes.length} among ${nodes.length} nodes`,
  );
  const box = boxes[0];
  check(box.path === CHECK_BOX, `check box path is ${JSON.stringify(box.path)}, expected "${CHECK_BOX}"`);
  return box;
}

function sdkVersion() {
  const url = new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')).version;
}

async function run(url) {
  const sdkErrors = [];
  const logRecords = [];
  const seen = { deleteStatus: undefined, closing: false };

  // The SDK's own fetch, watched: records the answer to DELETE.
  const watchedFetch = async (input, init) => {
    const response = await fetch(input, init);
    if ((init?.method ?? 'GET').toUpperCase() === 'DELETE') seen.deleteStatus = response.status;
    return response;
  };

  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: watchedFetch });
  const client = new Client({ name: 'axgate-client-check', version: '0.0.0' }, { capabilities: {} });
  client.onerror = (error) => {
    const text = `${error?.name ?? 'Error'}: ${error?.message ?? error}`;
    // close() aborts the GET stream if it is still open, and the SDK reports that abort: it is
    // our own doing, not a fault.
    const ours = seen.closing && /AbortError/.test(text);
    if (!ours) sdkErrors.push(text);
    console.error(`     sdk reported${ours ? ' (our own abort, ignored)' : ''}: ${text}`);
  };
  client.setNotificationHandler(LoggingMessageNotificationSchema, (note) => {
    const data = note.params.data && typeof note.params.data === 'object' ? note.params.data : {};
    logRecords.push({ level: note.params.level, logger: note.params.logger, ...data });
  });

  await client.connect(transport);
  const info = client.getServerVersion();
  const sessionId = transport.sessionId;
  check(info, 'initialize: no serverInfo');
  check(sessionId, 'initialize: no MCP-Session-Id header');
  step(
    'initialize',
    `protocol ${transport.protocolVersion}, server ${info.name} ${info.version}, session ${sessionId} ` +
      `(@modelcontextprotocol/sdk ${sdkVersion()})`,
  );
  check(
    transport.protocolVersion === '2025-11-25',
    `negotiated ${JSON.stringify(transport.protocolVersion)}, expected "2025-11-25"`,
  );
  check(client.getServerCapabilities()?.logging, 'server does not advertise the logging capability');

  await client.setLoggingLevel('info');
  step('logging/setLevel', 'info');

  const tools = await client.listTools();
  const names = tools.tools.map((t) => t.name).sort();
  for (const needed of ['get_tree', 'perform_action']) {
    check(names.includes(needed), `tools/list lacks "${needed}": ${names.join(', ')}`);
  }
  step('tools/list', names.join(', '));

  const calls = [];

  // listTools() above lets callTool validate structuredContent against each outputSchema.
  const before = await client.callTool({ name: 'get_tree', arguments: { app: APP } });
  calls.push('get_tree');
  let box = findCheckBox(before, 'before');
  check(box.value === false, `"${TITLE}" value is ${JSON.stringify(box.value)}, expected false${FRESH_HINT}`);
  step(
    'get_tree',
    `${before.structuredContent.nodes.length} nodes; check_box "${TITLE}" at ${box.path} = ${JSON.stringify(box.value)}`,
  );

  const acted = await client.callTool({
    name: 'perform_action',
    arguments: { app: APP, target: CHECK_BOX, action: 'press' },
  });
  calls.push('perform_action');
  check(!acted.isError, `perform_action returned isError: ${textOf(acted)}`);
  const out = acted.structuredContent;
  check(out && typeof out === 'object', 'perform_action has no structuredContent');
  const element = out.element ?? {};
  check(out.tool === 'perform_action' && out.verified === true, `perform_action result: tool ${JSON.stringify(out.tool)}, verified ${JSON.stringify(out.verified)}`);
  check(element.path === CHECK_BOX, `perform_action element path ${JSON.stringify(element.path)}`);
  check(
    element.value === true,
    `after press the element value is ${JSON.stringify(element.value)}, expected true`,
  );
  step('perform_action', `press ${CHECK_BOX} -> value ${JSON.stringify(element.value)}`);

  const after = await client.callTool({ name: 'get_tree', arguments: { app: APP } });
  calls.push('get_tree');
  box = findCheckBox(after, 'after');
  check(box.value === true, `get_tree after press: value is ${JSON.stringify(box.value)}, expected true`);
  step('get_tree', `check_box "${TITLE}" = ${JSON.stringify(box.value)} (the press took effect)`);

  // Each call's log record travels on the session's GET stream, not the call's own stream.
  // Wait for all of them, so that none is still in flight when we hang up.
  const toolCalls = () => logRecords.filter((r) => r.event === 'tool_call');
  const deadline = Date.now() + LOG_WAIT_MS;
  while (toolCalls().length < calls.length) {
    if (Date.now() > deadline) {
      throw new CheckFailed(
        `expected ${calls.length} tool_call log notifications within ${LOG_WAIT_MS / 1000} s, got ${JSON.stringify(logRecords)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const logged = toolCalls().map((r) => r.tool);
  check(
    JSON.stringify(logged) === JSON.stringify(calls),
    `tool_call log records name ${logged.join(', ')}, expected ${calls.join(', ')}`,
  );
  const bad = logRecords.filter((r) => r.outcome !== 'ok');
  check(bad.length === 0, `log records with outcome other than ok: ${JSON.stringify(bad)}`);
  step('notifications/message', `${logged.length} tool_call records: ${logged.join(', ')}`);

  await transport.terminateSession();
  check(seen.deleteStatus !== undefined, 'terminateSession() sent no DELETE');
  check(transport.sessionId === undefined, 'terminateSession() left the session id in place');
  seen.closing = true;
  await client.close();
  step('end session', `DELETE answered ${seen.deleteStatus}; client closed`);

  const probe = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list' }),
  });
  await probe.body?.cancel();
  check(probe.status === 404, `a request on the ended session answered ${probe.status}, expected 404`);
  step('session gone', 'a request with the old session id answers 404');

  return sdkErrors;
}

async function main() {
  if (process.argv.length !== 3) {
    console.error('usage: node client_check.mjs http://127.0.0.1:PORT/mcp');
    return 2;
  }
  let timer;
  const overall = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`gave up after ${OVERALL_MS / 1000} s`)), OVERALL_MS);
  });
  try {
    const sdkErrors = await Promise.race([run(process.argv[2]), overall]);
    if (sdkErrors.length > 0) {
      console.log(`FAIL the SDK reported ${sdkErrors.length} error(s): ${sdkErrors.join(' | ')}`);
      return 1;
    }
  } catch (error) {
    if (!(error instanceof CheckFailed)) console.error(error);
    console.log(`FAIL ${error instanceof CheckFailed ? '' : `${error?.name ?? 'Error'}: `}${error?.message ?? error}`);
    return 1;
  } finally {
    clearTimeout(timer);
  }
  console.log('PASS typescript SDK client drove the Form app');
  return 0;
}

process.exitCode = await main();
// Nothing may keep the process alive past its verdict (an SSE reconnect timer, say).
process.exit(process.exitCode);
