// A real OAuth 2.1 authorization server for tests/auth.rs: oidc-provider with the
// client_credentials grant and resource indicators (RFC 8707), issuing RS256 JWT access tokens
// whose `aud` is the requested resource.
//
//   node provider.mjs CONFIG.json
//
// CONFIG: { "port": 0 | N, "keys": { "keys": [private JWKs] }, "signKid": "k1" }. Listens on
// 127.0.0.1 (port 0 picks a free one), then prints one JSON line {"issuer": ..., "port": ...} on
// stdout. Tokens come from POST /token (client_secret_basic); the JWKS is at /jwks.
//
// Key rotation: POST /test-only/keys with {"keys": {"keys": [...]}, "signKid": "k2"} replaces
// the provider in place, same port and issuer. (A stop and a start on the same port would leave
// the port free while node loads its modules, and a parallel test binding port 0 can take it.)
//
// Clients (test-only secrets):
//   axgate-ci     scopes axgate:read axgate:act axgate:admin unrelated:scope; tokens live 300 s
//   axgate-short  the same scopes; tokens live 1 s (for expiry tests)
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

import Provider from 'oidc-provider';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const SCOPES = 'axgate:read axgate:act axgate:admin unrelated:scope';

const server = createServer();
await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port ?? 0, '127.0.0.1', resolve);
});
const { port } = server.address();
const issuer = `http://127.0.0.1:${port}`;

const client = (id) => ({
    client_id: id,
    client_secret: `${id}-secret`,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    scope: SCOPES,
});

const build = (keys, signKid) => new Provider(issuer, {
    clients: [client('axgate-ci'), client('axgate-short')],
    jwks: keys,
    cookies: { keys: ['test-only-cookie-key'] },
    scopes: SCOPES.split(' '),
    features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
            enabled: true,
            defaultResource: () => undefined,
            useGrantedResource: () => true,
            getResourceServerInfo: (_ctx, resource, requester) => ({
                scope: SCOPES,
                audience: resource,
                accessTokenTTL: requester.clientId === 'axgate-short' ? 1 : 300,
                accessTokenFormat: 'jwt',
                jwt: { sign: { alg: 'RS256', kid: signKid } },
            }),
        },
    },
});

let handle = build(config.keys, config.signKid).callback();

server.on('request', (req, res) => {
    if (req.method === 'POST' && req.url === '/test-only/keys') {
        let body = '';
        req.on('data', (chunk) => { body += chunk; });
        req.on('end', () => {
            const next = JSON.parse(body);
            handle = build(next.keys, next.signKid).callback();
            res.writeHead(204).end();
        });
        return;
    }
    handle(req, res);
});
process.on('SIGTERM', () => process.exit(0));
process.stdout.write(`${JSON.stringify({ issuer, port })}\n`);
