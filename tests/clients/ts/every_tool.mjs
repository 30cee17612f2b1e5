#!/usr/bin/env node
// Calls every axgate tool once through the official TypeScript MCP SDK (1.x), in the order of
// tests/clients/every_tool.json (the same list the Inspector and the Python SDK run).
//
// Usage: CLIENT_CHECK_TOKEN=<bearer token> OTHER_SESSION_TAG=<tag> node every_tool.mjs URL
//
// The SDK makes a session (2025-11-25) and, having listed the tools, validates each
// structuredContent against the tool's outputSchema. `$OTHER_SESSION_TAG` in an argument
// becomes the tag of another principal's session, which the harness opened for `end_session`.
// Prints one JSON line per call ({"step": "call", tool, is_error, structured, image, text}),
// then {"step": "pass"}, or {"step": "fail", "error": ...} and exit 1; tests/it/every_tool.rs
// asserts on them.

import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { report, verdict } from './verdict.mjs';

const TOKEN_ENV = 'CLIENT_CHECK_TOKEN';
const OVERALL_MS = 150_000;
const CALL_TIMEOUT_MS = 90_000;
const CALLS = new URL('../every_tool.json', import.meta.url);

async function run(url) {
  const token = process.env[TOKEN_ENV];
  const other = process.env.OTHER_SESSION_TAG ?? '';
  const { calls } = JSON.parse(readFileSync(CALLS, 'utf8'));
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'axgate-every-tool', version: '0.0.0' }, { capabilities: {} });
  await client.connect(transport);
  report('connect', { protocol: transport.protocolVersion ?? null });
  await client.listTools();
  for (const call of calls) {
    const args = JSON.parse(JSON.stringify(call.args).replaceAll('$OTHER_SESSION_TAG', other));
    const result = await client.callTool({ name: call.tool, arguments: args }, undefined, {
      timeout: CALL_TIMEOUT_MS,
    });
    const content = result.content ?? [];
    report('call', {
      tool: call.tool,
      is_error: Boolean(result.isError),
      structured: result.structuredContent !== undefined,
      image: content.some((c) => c.type === 'image'),
      text: content.map((c) => c.text ?? '').join(' ').slice(0, 300),
    });
  }
  await transport.terminateSession();
  await client.close();
}

process.exitCode = await verdict('every_tool.mjs', run, OVERALL_MS);
process.exit(process.exitCode);
