/**
 * Reads a copy of the EnvGap repository layout (docs/paper-data.md §1): the per-run tables under `results/raw/` and/or
 * `data/results/` (different versions of the repository keep them in one or the other; a copy may hold part
 * of them in each) and `data/prompts/prompt_overview.csv` for the task domains. Pure reading: no store access.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { EnvproofError } from '../core/errors.js';
import type { EcosystemId } from '../core/types.js';
import type { TaskInfo } from '../metrics/aggregate-types.js';
import { CsvSyntaxError, parseCsv, type CsvRecord } from './csv.js';
import { dependencySet, isTrue, parseCount } from './envgap-normalise.js';
import type { StoredRun } from '../store/types.js';

export const RUN_FOLDERS = ['results/raw', 'data/results'] as const;
export const PROMPT_OVERVIEW = 'data/prompts/prompt_overview.csv';

const RUN_FILE = /^(claude|codex|gemini)(?:_trial_(\d))?_(python|java|javascript|cpp)_.*\.csv$/;
const REQUIRED_COLUMNS = [
  'prompt_id',
  'initial_execution',
  'final_execution',
  'initial_error_type',
  'claimed_deps',
  'claimed_count',
  'transitive_deps',
  'transitive_count',
  'runtime_deps',
] as const;
const TASK_ID = /^p_\d+$/;

export interface RunFile {
  path: string;
  agent: string;
  trial: number;
  language: EcosystemId;
}

export interface EnvgapData {
  files: RunFile[];
  runs: StoredRun[];
  /** Empty when the copy has no prompt_overview.csv. */
  tasks: TaskInfo[];
  warnings: string[];
}

function malformed(file: string, line: number, what: string): EnvproofError {
  return new EnvproofError(
    `${file}:${line}: ${what}`,
    'Fix or remove that row; nothing was imported (the import is all or nothing).',
  );
}

/** A data row's cells by column name, with the line it starts on. */
interface TableRow {
  line: number;
  cells: Record<string, string>;
}

/** The data rows of a CSV file whose header has `required` columns; every row must have the header's field count. */
function readTable(file: string, required: readonly string[]): TableRow[] {
  let records: CsvRecord[];
  try {
    records = parseCsv(readFileSync(file, 'utf8'));
  } catch (err) {
    if (err instanceof CsvSyntaxError) throw malformed(file, err.line, err.message);
    throw err;
  }
  const header = records[0];
  if (!header) throw malformed(file, 1, 'the file is empty (no header row)');
  const missing = required.filter((c) => !header.fields.includes(c));
  if (missing.length > 0) throw malformed(file, header.line, `header lacks column(s) ${missing.join(', ')}`);
  return records.slice(1).map((rec) => {
    if (rec.fields.length !== header.fields.length) {
      throw malformed(file, rec.line, `${rec.fields.length} fields where the header has ${header.fields.length}`);
    }
    const cells: Record<string, string> = {};
    header.fields.forEach((name, i) => (cells[name] = rec.fields[i]!));
    return { line: rec.line, cells };
  });
}

/** The per-run tables of the copy, one per (agent, trial, language); the same table in both folders must be identical. */
export function findRunFiles(dir: string): RunFile[] {
  const folders = RUN_FOLDERS.map((f) => path.join(dir, f)).filter((f) => existsSync(f));
  if (folders.length === 0) {
    throw new EnvproofError(
      `${dir} has neither ${RUN_FOLDERS.join(' nor ')}`,
      'Pass the root of a copy of the EnvGap repository (the folder that contains results/ and data/).',
    );
  }
  const byKey = new Map<string, RunFile>();
  for (const folder of folders) {
    for (const name of readdirSync(folder).sort()) {
      const m = RUN_FILE.exec(name);
      if (!m) continue;
      const file: RunFile = {
        path: path.join(folder, name),
        agent: m[1]!,
        trial: m[2] === undefined ? 1 : Number(m[2]),
        language: m[3] as EcosystemId,
      };
      const key = `${file.agent} ${file.trial} ${file.language}`;
      const seen = byKey.get(key);
      if (seen && readFileSync(seen.path, 'utf8') !== readFileSync(file.path, 'utf8')) {
        throw new EnvproofError(
          `${seen.path} and ${file.path} both hold ${file.agent} trial ${file.trial} ${file.language} runs, with different content`,
          'Keep one of the two files.',
        );
      }
      if (!seen) byKey.set(key, file);
    }
  }
  if (byKey.size === 0) {
    throw new EnvproofError(
      `no per-run tables (<agent>[_trial_N]_<language>_*.csv) in ${folders.join(' or ')}`,
      'Pass the root of a copy of the EnvGap repository layout.',
    );
  }
  return [...byKey.values()];
}

function readRunFile(file: RunFile): StoredRun[] {
  const seenTasks = new Set<string>();
  return readTable(file.path, REQUIRED_COLUMNS).map(({ line, cells: raw }) => {
    const taskId = (raw.prompt_id ?? '').trim();
    if (!TASK_ID.test(taskId)) throw malformed(file.path, line, `prompt_id ${JSON.stringify(taskId)} is not of the form p_NN`);
    if (seenTasks.has(taskId)) throw malformed(file.path, line, `${taskId} appears twice`);
    seenTasks.add(taskId);
    const firstSuccess = isTrue(raw.initial_execution);
    const finalSuccess = isTrue(raw.final_execution);
    const errorType = (raw.initial_error_type ?? '').trim();
    return {
      source: 'envgap-csv',
      agent: file.agent,
      language: file.language,
      taskId,
      trial: file.trial,
      primary: file.trial === 1,
      firstSuccess,
      finalSuccess,
      // The tables record whether a repair happened, not how many rounds it took.
      repairDepth: firstSuccess && finalSuccess ? 0 : null,
      initialErrorType: errorType === '' ? null : errorType,
      declared: dependencySet(raw.claimed_deps, file.language, 'declared'),
      installed: dependencySet(raw.transitive_deps, file.language, 'installed'),
      traced: dependencySet(raw.runtime_deps, file.language, 'traced'),
      claimedCount: parseCount(raw.claimed_count),
      transitiveCount: parseCount(raw.transitive_count),
      raw,
      origin: `${file.path}:${line}`,
    };
  });
}

export function readPromptOverview(file: string): TaskInfo[] {
  return readTable(file, ['prompt_id', 'task_title', 'category', 'complexity']).map(({ line, cells }) => {
    const id = cells.prompt_id!.trim();
    if (!TASK_ID.test(id)) throw malformed(file, line, `prompt_id ${JSON.stringify(id)} is not of the form p_NN`);
    return { id, title: cells.task_title!, domain: cells.category!.trim(), complexity: cells.complexity! };
  });
}

export function readEnvgapDir(dir: string): EnvgapData {
  if (!existsSync(dir)) throw new EnvproofError(`${dir} does not exist`, 'Pass the root of a copy of the EnvGap repository layout.');
  const files = findRunFiles(dir);
  const runs = files.flatMap(readRunFile);
  const overview = path.join(dir, PROMPT_OVERVIEW);
  const warnings: string[] = [];
  let tasks: TaskInfo[] = [];
  if (existsSync(overview)) tasks = readPromptOverview(overview);
  else warnings.push(`${overview} not found: runs are imported without task domains`);
  return { files, runs, tasks, warnings };
}
