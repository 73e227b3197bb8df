import { Option, type Command } from 'commander';
import { IMAGE_BASES, type ImageBase } from '../sandbox/container.js';
import type { EnvironmentChoice } from '../sandbox/index.js';
import { normaliseSystemPackages } from '../sandbox/rootfs.js';

/** The options of `audit`, `run` and `env build` that choose the environment beyond the backend. */
export interface EnvironmentFlags {
  systemPackages?: string;
  imageBase: ImageBase;
}

export function addEnvironmentOptions(command: Command): Command {
  return command
    .option(
      '--system-packages <names>',
      'Debian packages to add to the clean environment (comma-separated; a derived environment, built once and cached; reported as system dependencies)',
    )
    .addOption(new Option('--image-base <base>', 'base system of the podman/docker images (ubuntu:22.04, the paper\'s, needs a registry)').choices([...IMAGE_BASES]).default('debian'));
}

/** The flags as the sandbox takes them; a bad package name is a usage error here, before anything runs. */
export function environmentChoice(flags: EnvironmentFlags): EnvironmentChoice {
  const names = (flags.systemPackages ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return { imageBase: flags.imageBase, systemPackages: normaliseSystemPackages(names) };
}
