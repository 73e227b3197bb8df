/**
 * A local npm registry for the dependency-drift test: this machine reaches npm only through a mirror whose
 * publish times are when it fetched each version, so a date cannot select versions there. This one serves real
 * packuments (with `time`) and tarballs made by `npm pack`, over HTTP on the loopback interface.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface LocalRegistry {
  url: string;
  close(): Promise<void>;
}

/** Serves `name` with one version per entry of `published` (version → ISO publish time); index.js exports { major }. */
export async function startLocalRegistry(name: string, published: Record<string, string>): Promise<LocalRegistry> {
  const tarballs = new Map<string, Buffer>();
  const versions: Record<string, unknown> = {};
  const server = http.createServer((req, res) => {
    const url = req.url ?? '';
    if (url === `/${name}`) {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(packument()));
      return;
    }
    const tgz = tarballs.get(url);
    if (tgz) res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(tgz);
    else res.writeHead(404).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const version of Object.keys(published)) {
    const dir = mkdtempSync(path.join(tmpdir(), 'npm-pkg-'));
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, version, main: 'index.js' }));
    writeFileSync(path.join(dir, 'index.js'), `module.exports = { major: ${Number(version.split('.')[0])} };\n`);
    const file = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: dir, encoding: 'utf8' }).trim().split('\n').at(-1)!;
    const data = readFileSync(path.join(dir, file));
    const tarPath = `/${name}/-/${name}-${version}.tgz`;
    tarballs.set(tarPath, data);
    versions[version] = {
      name,
      version,
      main: 'index.js',
      dist: {
        tarball: `${base}${tarPath}`,
        shasum: createHash('sha1').update(data).digest('hex'),
        integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`,
      },
    };
  }
  const latest = Object.keys(published).at(-1)!;
  const packument = () => ({ name, 'dist-tags': { latest }, versions, time: { created: Object.values(published)[0], modified: published[latest], ...published } });
  return {
    url: `${base}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
