// Test-only signing keys for the authorization server that tests/auth.rs runs: prints a JWK set
// of fresh RSA-2048 private keys (alg RS256, use sig), one per kid given on the command line.
// Nothing here is a real secret: the keys are generated per test run and never stored.
import { generateKeyPairSync } from 'node:crypto';

const kids = process.argv.slice(2);
if (kids.length === 0) {
    console.error('usage: node keys.mjs KID [KID...]');
    process.exit(2);
}
const keys = kids.map((kid) => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    return { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
});
process.stdout.write(`${JSON.stringify({ keys })}\n`);
