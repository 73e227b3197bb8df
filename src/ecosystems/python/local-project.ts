import { parse as parseToml } from 'smol-toml';
import { readProjectFileIfExists } from '../../core/safe-read.js';

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A file of the local project `dir`, which must resolve inside it. */
async function readText(dir: string, name: string): Promise<string | undefined> {
  return readProjectFileIfExists(dir, name);
}

function parsePyproject(text: string): Record<string, unknown> | undefined {
  try {
    return parseToml(text);
  } catch {
    return undefined;
  }
}

function nameFromPyproject(text: string): string | undefined {
  const doc = parsePyproject(text);
  if (!doc) return undefined;
  const project = asRecord(doc['project'])?.['name'];
  const poetry = asRecord(asRecord(doc['tool'])?.['poetry'])?.['name'];
  const name = project ?? poetry;
  return typeof name === 'string' ? name : undefined;
}

/** `name = ...` in the `[metadata]` section of an INI file. */
function nameFromSetupCfg(text: string): string | undefined {
  let inMetadata = false;
  for (const line of text.split(/\r?\n/)) {
    const section = /^\s*\[([^\]]+)\]/.exec(line);
    if (section) inMetadata = section[1]!.trim() === 'metadata';
    const entry = inMetadata ? /^\s*name\s*[=:]\s*(\S.*?)\s*$/.exec(line) : null;
    if (entry) return entry[1];
  }
  return undefined;
}

/**
 * The distribution name a local project directory declares (pyproject.toml `[project].name` or
 * `[tool.poetry].name`, else setup.cfg `[metadata] name`); undefined when it declares none statically.
 */
export async function localProjectName(dir: string): Promise<string | undefined> {
  const pyproject = await readText(dir, 'pyproject.toml');
  const fromPyproject = pyproject === undefined ? undefined : nameFromPyproject(pyproject);
  if (fromPyproject) return fromPyproject;
  const setupCfg = await readText(dir, 'setup.cfg');
  return setupCfg === undefined ? undefined : nameFromSetupCfg(setupCfg);
}

/**
 * The console scripts the project declares (`[project.scripts]`, else Poetry's `[tool.poetry.scripts]`), in the
 * order written: the commands `pip install .` puts in the environment's bin directory.
 */
export async function localProjectScripts(dir: string): Promise<string[]> {
  const text = await readText(dir, 'pyproject.toml');
  const doc = text === undefined ? undefined : parsePyproject(text);
  const scripts = asRecord(asRecord(doc?.['project'])?.['scripts']) ?? asRecord(asRecord(asRecord(doc?.['tool'])?.['poetry'])?.['scripts']);
  return Object.keys(scripts ?? {}).filter((name) => /^[\w.-]+$/.test(name));
}
