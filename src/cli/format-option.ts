import { InvalidArgumentError, Option } from 'commander';

/** The two names of Markdown: every command with a `--format` takes both. */
const MARKDOWN = ['md', 'markdown'];

/**
 * `--format <format>` with these choices (one of them may be Markdown, under either name) and this default. The
 * value reaches the command as written in `choices`, so `--format markdown` and `--format md` are the same.
 */
export function formatOption(description: string, choices: readonly string[], fallback: string): Option {
  const markdown = choices.find((c) => MARKDOWN.includes(c));
  const accepted = markdown ? [...new Set([...choices, ...MARKDOWN])] : [...choices];
  return new Option('--format <format>', description)
    .choices(accepted)
    .default(fallback)
    .argParser((value: string) => {
      if (!accepted.includes(value)) throw new InvalidArgumentError(`Allowed choices are ${accepted.join(', ')}.`);
      return markdown && MARKDOWN.includes(value) ? markdown : value;
    });
}
