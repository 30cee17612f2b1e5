#!/usr/bin/env node
// What the official TypeScript MCP SDK (1.x) reports for a call beyond the token's scope.
//
// Usage: CLIENT_CHECK_TOKEN=<read-only bearer token> node scope_check.mjs http://127.0.0.1:PORT/mcp
//
// Calls `set_value` (which needs axgate:act) with an axgate:read token. The server answers 403
// with an insufficient_scope challenge and a JSON-RPC error body; this prints one JSON line
// {"step": "set_value", "raised": ..., "message": ...} with what the SDK surfaced, for
// tests/it/clients_policy.rs. Any other failure prints {"step": "fail"} and exits 1.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const token = process.env.CLIENT_CHECK_TOKEN;
const timer = setTimeout(() => {
  console.log(JSON.stringify({ step: 'fail', error: 'timed out after 60 s' }));
  process.exit(1);
}, 60_000);

try {
  const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'axgate-scope-check', version: '1.0.0' });
  await client.connect(transport);
  try {
    const result = await client.callTool({
      name: 'set_value',
      arguments: { app: 'Form', target: 'window[0]/text_field[0]', value: 'x' },
    });
    const text = (result.content ?? []).map((c) => c.text ?? '').join(' ');
    console.log(JSON.stringify({ step: 'set_value', raised: null, isError: !!result.isError, message: text }));
  } catch (error) {
    console.log(JSON.stringify({ step: 'set_value', raised: error?.constructor?.name ?? 'Error', message: String(error?.message ?? error) }));
  }
  await transport.terminateSession().catch(() => {});
  await client.close();
  clearTimeout(timer);
} catch (error) {
  console.log(JSON.stringify({ step: 'fail', error: String(error?.stack ?? error) }));
  process.exit(1);
}
