import { ecosystems } from '../ecosystems/index.js';
import { readProjectFileIfExists } from '../core/safe-read.js';

const RUN_HEADING = /^#{1,6}\s.*\b(run|running|usage|quick ?start|getting started|example)\b/i;
/** Setup steps of any project; each ecosystem adds its own (installing, building). */
const SETUP_COMMAND = /^(sudo\b|apt(-get)?\b|cd\b|git\b|mkdir\b|export\b|source\b|\.\s|chmod\b|#)/;

function isSetupCommand(command: string): boolean {
  return SETUP_COMMAND.test(command) || ecosystems().some((e) => e.readmeSetupCommand?.test(command));
}

/**
 * The command a README's run section gives, for projects whose entry point cannot be found from the
 * project itself: the first command in a code block under a heading about running or usage that is not a
 * setup step (installing, building, changing directory). Undefined when there is none.
 */
export function runCommandFromReadme(markdown: string): string | undefined {
  const lines = markdown.split('\n');
  let inRunSection = false;
  let inCode = false;
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith('```') || line.startsWith('~~~')) {
      inCode = !inCode;
      continue;
    }
    if (!inCode && /^#{1,6}\s/.test(line)) {
      inRunSection = RUN_HEADING.test(line);
      continue;
    }
    if (!inCode || !inRunSection) continue;
    const command = line.replace(/^\$\s+/, '');
    if (command && !isSetupCommand(command)) return command;
  }
  return undefined;
}

export async function readmeRunCommand(projectDir: string): Promise<string | undefined> {
  for (const name of ['README.md', 'readme.md', 'Readme.md', 'README']) {
    const text = await readProjectFileIfExists(projectDir, name);
    if (text !== undefined) return runCommandFromReadme(text);
  }
  return undefined;
}
