import type { Check } from '../doctor/checks.js';
import { errorMessage } from '../core/errors.js';
import { runProcess } from '../core/process.js';
import { ecosystemIds } from '../ecosystems/index.js';
import { checkEngine, engineSetup, HOST_ENV, type ContainerEngine, type ProbeTarget } from './engine.js';
import { hostNamespaces } from './host.js';
import { UBUNTU_IMAGE } from './images.js';
import { readEnvironment } from './rootfs.js';

/** Something to start a trial container from: an envproof image, else (podman) a finished root filesystem. */
async function probeTarget(engine: ContainerEngine): Promise<ProbeTarget | null> {
  const r = await runProcess([engine, 'images', '--format', '{{.Repository}}:{{.Tag}}'], { env: HOST_ENV(), timeoutMs: 60_000 });
  const image = r.stdout.split('\n').find((l) => /(^|\/)envproof-[a-z]+-debian:/.test(l));
  if (image) return { image };
  if (engine !== 'podman') return null;
  for (const language of ecosystemIds()) {
    const env = await readEnvironment(language);
    if (env) return { rootfs: env.dir };
  }
  return null;
}

const shown = (argv: readonly string[]) => `\`${argv.join(' ')}\``;

/** What `engine` needs on this machine, found afresh: the options it runs with, its seccomp profile, the ubuntu base. */
export async function engineChecks(engine: ContainerEngine): Promise<Check[]> {
  let version: string;
  try {
    version = await checkEngine(engine);
  } catch (err) {
    const fix = engine === 'podman' ? 'apt-get install -y podman runc (or run scripts/setup.sh)' : 'start the Docker daemon, or use --sandbox podman';
    return [{ name: engine, ok: false, optional: true, detail: `${errorMessage(err)} (needed only for --sandbox ${engine})`, fix }];
  }
  const checks: Check[] = [{ name: engine, ok: true, optional: true, detail: version }];
  const target = await probeTarget(engine);
  if (!target) {
    checks.push({ name: `${engine} containers`, ok: false, optional: true, detail: 'nothing to start a trial container from yet', fix: `envproof env build python --sandbox ${engine}` });
    return checks;
  }
  try {
    const setup = await engineSetup(engine, target, true);
    const tried = setup.rejected.map((c) => `${shown([engine, ...c.options])} failed: ${c.error}`);
    const ulimits = [`--ulimit nofile=${setup.openFiles}:${setup.openFiles}`, '--ulimit nproc=<per run>'];
    checks.push({ name: `${engine} containers`, ok: true, optional: true, detail: [`start with ${shown([engine, ...setup.globalOptions, 'run', ...ulimits])}`, ...tried].join('; ') });
    checks.push({
      name: `${engine} seccomp`,
      ok: true,
      optional: true,
      detail: setup.seccompProfile ? `the engine's default profile plus ptrace and process_vm_readv: ${setup.seccompProfile}` : "the engine's built-in default profile (no profile file found to extend)",
    });
  } catch (err) {
    checks.push({ name: `${engine} containers`, ok: false, optional: true, detail: errorMessage(err), fix: 'see the errors above; --sandbox bwrap needs no engine' });
  }
  const ubuntu = await runProcess([engine, 'image', 'inspect', UBUNTU_IMAGE], { env: HOST_ENV(), timeoutMs: 60_000 });
  checks.push({
    name: 'ubuntu base',
    ok: ubuntu.exitCode === 0,
    optional: true,
    detail: ubuntu.exitCode === 0 ? `${UBUNTU_IMAGE} is in ${engine}'s store (--image-base ubuntu)` : `${UBUNTU_IMAGE} is not in ${engine}'s store; --image-base ubuntu must pull it from a registry`,
  });
  return checks;
}

/** The host backend: whether a traced run's network can be cut here. */
export function hostNetworkCheck(): Check {
  const ns = hostNamespaces();
  return ns.network
    ? { name: 'host network namespace', ok: true, optional: true, detail: '--sandbox host runs traced programs without network (own network namespace)' }
    : { name: 'host network namespace', ok: false, optional: true, detail: `--sandbox host cannot cut the network of traced programs: ${ns.networkProblem}`, fix: 'run as root, or allow user namespaces' };
}
