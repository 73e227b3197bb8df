import { Option } from 'commander';
import { TRACER_CHOICES } from '../trace/index.js';

/** `--tracer auto|fast|strace`, shared by the commands that trace programs. */
export function tracerOption(): Option {
  return new Option('--tracer <name>', 'how the program\'s run is traced: fast (kernel events, needs root), strace, or auto (fast where it can run, else strace)')
    .choices([...TRACER_CHOICES])
    .default('auto');
}
