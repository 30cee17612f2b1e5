// The JSON-lines report and verdict of the WebDriver client scripts: those of
// tests/clients/ts/verdict.mjs (the MCP SDK's scripts) with the WebDriver token. One line per
// step ({"step": ..., ...}), then {"step": "pass"} (exit 0) or {"step": "fail", "error": ...}
// (exit 1), the lines tests/it/webdriver/clients.rs asserts on.

import { inflateSync } from 'node:zlib';

import { verdict as verdictOf } from '../ts/verdict.mjs';

export { CheckFailed, check, report } from '../ts/verdict.mjs';

// Runs `scenario(baseUrl, token)` with the base URL from the command line and the token from
// WD_TOKEN, under `overallMs`; the exit code.
export async function verdict(script, scenario, overallMs) {
  const token = process.env.WD_TOKEN;
  if (!token) {
    console.error(`usage: WD_TOKEN=... node ${script} http://127.0.0.1:PORT`);
    return 2;
  }
  return verdictOf(script, (url) => scenario(new URL(url), token), overallMs);
}

// Decodes a PNG far enough to know it is one: the signature, IHDR, and the IDAT stream inflated
// to exactly the rows its width, height and colour type promise (8-bit samples). Its size.
export function png(base64) {
  const bytes = Buffer.from(base64, 'base64');
  const signature = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
  if (!bytes.subarray(0, 8).equals(signature)) return { png: false, width: 0, height: 0 };
  let at = 8;
  let header;
  const idat = [];
  while (at + 8 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.subarray(at + 4, at + 8).toString('latin1');
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') header = data;
    if (type === 'IDAT') idat.push(data);
    at += 12 + length;
    if (type === 'IEND') break;
  }
  if (!header) return { png: false, width: 0, height: 0 };
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[header[9]];
  const rows = inflateSync(Buffer.concat(idat));
  const ok = header[8] === 8 && channels !== undefined && rows.length === height * (1 + width * channels);
  return { png: ok, width, height };
}
