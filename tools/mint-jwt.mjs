// Mints an HS256 JWT for local use: node tools/mint-jwt.mjs --sub alice --workspace acme [--workspaces a,b] [--roles admin] [--ttl 3600]
// Signs with AUTH_JWT_SECRET, the same secret the gateway verifies with. The token always carries
// iat and exp (the gateway refuses tokens without exp, and those valid for longer than
// AUTH_JWT_MAX_LIFETIME_SECONDS, default 86400). --roles sets the `roles` claim (comma-separated):
// `admin` makes a workspace administrator under the default AUTH_ADMIN_CLAIM / AUTH_ADMIN_VALUE.
import { SignJWT } from 'jose';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    sub: { type: 'string', default: 'alice' },
    workspace: { type: 'string', default: 'default' },
    workspaces: { type: 'string', default: '' },
    roles: { type: 'string', default: '' },
    ttl: { type: 'string', default: '3600' },
  },
});
const secret = process.env.AUTH_JWT_SECRET;
if (!secret) {
  process.stderr.write('Set AUTH_JWT_SECRET to the secret the gateway uses.\n');
  process.exit(1);
}
const list = (value) => value.split(',').map((item) => item.trim()).filter(Boolean);
const workspaces = list(values.workspaces);
const roles = list(values.roles);
const ttl = Number(values.ttl);
if (!Number.isInteger(ttl) || ttl <= 0) {
  process.stderr.write('--ttl must be a positive number of seconds: tokens without exp are refused.\n');
  process.exit(1);
}
const token = await new SignJWT({ workspace_id: values.workspace, ...(workspaces.length ? { workspaces } : {}), ...(roles.length ? { roles } : {}) })
  .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
  .setSubject(values.sub)
  .setIssuedAt()
  .setExpirationTime(`${ttl}s`)
  .sign(new TextEncoder().encode(secret));
process.stdout.write(token + '\n');
