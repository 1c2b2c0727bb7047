// Mints an HS256 JWT for local use: node tools/mint-jwt.mjs --sub alice --workspace acme [--workspaces a,b] [--ttl 3600]
// Signs with AUTH_JWT_SECRET, the same secret the gateway verifies with.
import { SignJWT } from 'jose';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    sub: { type: 'string', default: 'alice' },
    workspace: { type: 'string', default: 'default' },
    workspaces: { type: 'string', default: '' },
    ttl: { type: 'string', default: '3600' },
  },
});
const secret = process.env.AUTH_JWT_SECRET;
if (!secret) {
  process.stderr.write('Set AUTH_JWT_SECRET to the secret the gateway uses.\n');
  process.exit(1);
}
const workspaces = values.workspaces.split(',').map((w) => w.trim()).filter(Boolean);
const token = await new SignJWT({ workspace_id: values.workspace, ...(workspaces.length ? { workspaces } : {}) })
  .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
  .setSubject(values.sub)
  .setIssuedAt()
  .setExpirationTime(`${Number(values.ttl)}s`)
  .sign(new TextEncoder().encode(secret));
process.stdout.write(token + '\n');
