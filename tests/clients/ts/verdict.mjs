// What every TypeScript client script shares: its JSON-lines report and its verdict. A script
// prints one line per step ({"step": ..., ...}); the verdict runs its scenario under an overall
// timeout and ends with {"step": "pass"} (exit 0) or {"step": "fail", "error": ...} (exit 1), the
// lines the Rust tests assert on.

export class CheckFailed extends Error {}

export function report(step, fields = {}) {
  console.log(JSON.stringify({ step, ...fields }));
}

export function check(cond, message) {
  if (!cond) throw new CheckFailed(message);
}

// Runs `scenario(url)` with the URL from the command line, under `overallMs`; the exit code.
// A failed check is reported by its message alone, anything else with its stack on stderr.
export async function verdict(script, scenario, overallMs) {
  if (process.argv.length !== 3) {
    console.error(`usage: node ${script} http://127.0.0.1:PORT/mcp`);
    return 2;
  }
  let timer;
  const overall = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`gave up after ${overallMs / 1000} s`)), overallMs);
  });
  try {
    await Promise.race([scenario(process.argv[2]), overall]);
  } catch (error) {
    if (!(error instanceof CheckFailed)) console.error(error);
    report('fail', { error: `${error?.name ?? 'Error'}: ${error?.message ?? error}` });
    return 1;
  } finally {
    clearTimeout(timer);
  }
  report('pass');
  return 0;
}
