/**
 * The PostgreSQL of a backend evaluation: Debian's server, a fresh cluster per run in the sandbox's own /tmp,
 * listening inside the server's network namespace with the credentials every prompt states.
 */
import { shellQuote } from '../core/shell.js';

/** The credentials and database name every PostgreSQL prompt states. */
export const POSTGRES = { user: 'user', password: 'password', database: 'conduit', host: 'localhost', port: 5432 } as const;
/** What the launcher prints when envproof's own PostgreSQL could not be started: the machinery's failure. */
export const POSTGRES_FAILURE = 'envproof: PostgreSQL failed';

/** The shell lines that start a fresh PostgreSQL cluster (run as `nobody` when the sandbox runs as root). */
export function postgresStart(dir: string, port: number): string {
  const d = shellQuote(dir);
  const fail = (what: string) => `echo '${POSTGRES_FAILURE}: ${what}' >&2; exit 97`;
  return [
    'pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)',
    `[ -n "$pgbin" ] || { ${fail('is not installed in this environment')}; }`,
    `mkdir -p ${d} && printf '%s\\n' ${shellQuote(POSTGRES.password)} > ${d}/pw`,
    "as=''",
    `if [ "$(id -u)" = 0 ]; then chown -R 65534:65534 ${d}; as='setpriv --reuid=65534 --regid=65534 --clear-groups --'; fi`,
    `$as "$pgbin/initdb" -D ${d}/data -U ${POSTGRES.user} --pwfile=${d}/pw --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --no-sync > ${d}/initdb.log 2>&1 || { cat ${d}/initdb.log >&2; ${fail('initdb failed')}; }`,
    `$as "$pgbin/pg_ctl" -D ${d}/data -l ${d}/server.log -w -t 60 -o "-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off" start > /dev/null || { cat ${d}/server.log >&2; ${fail('did not start')}; }`,
    `$as "$pgbin/createdb" -h ${d} -p ${port} -U ${POSTGRES.user} ${POSTGRES.database} || { ${fail('could not create the database')}; }`,
    `echo "envproof: PostgreSQL ready on ${POSTGRES.host}:${port}, database ${POSTGRES.database}" >&2`,
  ].join('\n');
}
