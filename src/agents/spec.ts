import { statSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { AnthropicTransport } from './anthropic.js';
import { ChatAgent, type ChatTransport } from './chat.js';
import { CMD_PRESETS, CmdAgent } from './cmd.js';
import { OpenAiTransport } from './openai.js';
import { ReplayAgent } from './replay.js';
import { loadScript, ScriptedAgent } from './scripted.js';
import type { Agent } from './types.js';

/** `key=value,key=value` options of an HTTP agent spec. */
function options(spec: string, text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(',').filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq < 1) throw new UsageError(`--agent ${spec}: expected key=value, got "${part}"`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/**
 * The API key of an HTTP agent spec and the variable it came from. A variable named with `key-env=` must be set
 * (refused before the first request); the default one is needed only by the provider's own endpoint.
 */
function apiKey(spec: string, named: string | undefined, fallback: string, env: NodeJS.ProcessEnv, ownEndpoint: boolean): { key?: string; keyEnv: string } {
  const keyEnv = named ?? fallback;
  const key = env[keyEnv];
  if (!key && (named !== undefined || ownEndpoint)) {
    throw new UsageError(`--agent ${spec}: the environment variable ${keyEnv} is not set`, `export ${keyEnv}=... or name another variable with key-env=`);
  }
  return key ? { key, keyEnv } : { keyEnv };
}

const SPEC_HELP = [
  '[<name>@]<one of the below>',
  'scripted:<script.yaml|json>',
  'replay:<dir>',
  'cmd:claude | cmd:codex | cmd:gemini | cmd:aider | cmd:<command template>',
  'openai:model=<m>[,base=<url>][,key-env=<VAR>][,name=<label>][,temperature=<t>]',
  'anthropic:model=<m>[,base=<url>][,key-env=<VAR>][,name=<label>][,max-tokens=<n>]',
].join('\n  ');

const LABEL = /^([A-Za-z0-9_.-]+)@(?=(scripted|replay|cmd|openai|anthropic)(:|$))/;

/**
 * Builds an agent from its command-line spec, optionally labelled `<name>@<spec>` (the name runs are stored
 * under, e.g. `claude@replay:./outputs`). Credentials come from environment variables only.
 */
export function agentFromSpec(spec: string, env: NodeJS.ProcessEnv = process.env): Agent {
  const label = LABEL.exec(spec);
  if (label) {
    const agent = unlabelledAgent(spec.slice(label[0].length), env);
    return { name: label[1]!, turn: (req) => agent.turn(req) };
  }
  return unlabelledAgent(spec, env);
}

function unlabelledAgent(spec: string, env: NodeJS.ProcessEnv): Agent {
  const colon = spec.indexOf(':');
  const kind = colon < 0 ? spec : spec.slice(0, colon);
  const rest = colon < 0 ? '' : spec.slice(colon + 1);
  switch (kind) {
    case 'scripted':
      if (!rest) throw new UsageError('--agent scripted needs a script file: scripted:<file>');
      return new ScriptedAgent('scripted', loadScript(rest));
    case 'replay':
      if (!rest) throw new UsageError('--agent replay needs a directory: replay:<dir>');
      if (!statSync(rest, { throwIfNoEntry: false })?.isDirectory()) {
        throw new UsageError(`--agent ${spec}: no such directory`, 'replay reads <dir>/<task-id>/<language>/<n>/');
      }
      return new ReplayAgent('replay', rest);
    case 'cmd': {
      if (!rest) throw new UsageError(`--agent cmd needs a preset (${Object.keys(CMD_PRESETS).join(', ')}) or a command template`);
      const preset = CMD_PRESETS[rest];
      return preset ? new CmdAgent(rest, preset) : new CmdAgent('cmd', { first: rest });
    }
    case 'openai':
    case 'anthropic': {
      const { name, transport } = chatTransportFromSpec(spec, env);
      return new ChatAgent(name, transport);
    }
    default:
      throw new UsageError(`unknown agent "${spec}"`, `agents are:\n  ${SPEC_HELP}`);
  }
}

/**
 * The chat API of an `openai:` or `anthropic:` spec: its transport and the name runs are stored under.
 * `temperature` overrides the spec's (the failure judge asks for 0).
 */
export function chatTransportFromSpec(spec: string, env: NodeJS.ProcessEnv = process.env, overrides: { temperature?: number } = {}): { name: string; transport: ChatTransport } {
  const colon = spec.indexOf(':');
  const kind = colon < 0 ? spec : spec.slice(0, colon);
  const o = options(spec, colon < 0 ? '' : spec.slice(colon + 1));
  if (kind !== 'openai' && kind !== 'anthropic') throw new UsageError(`"${spec}" is not a chat API`, 'use openai:model=...[,base=...] or anthropic:model=...[,base=...]');
  if (!o.model) throw new UsageError(`--agent ${spec}: model= is required`);
  const temperature = overrides.temperature ?? (o.temperature ? Number(o.temperature) : undefined);
  if (kind === 'openai') {
    const base = o.base ?? 'https://api.openai.com/v1';
    const { key, keyEnv } = apiKey(spec, o['key-env'], 'OPENAI_API_KEY', env, !o.base);
    return { name: o.name ?? `openai:${o.model}`, transport: new OpenAiTransport({ baseUrl: base, model: o.model, apiKey: key, keyEnv, temperature }) };
  }
  const base = o.base ?? 'https://api.anthropic.com';
  const { key, keyEnv } = apiKey(spec, o['key-env'], 'ANTHROPIC_API_KEY', env, !o.base);
  return { name: o.name ?? `anthropic:${o.model}`, transport: new AnthropicTransport({ baseUrl: base, model: o.model, apiKey: key, keyEnv, maxTokens: Number(o['max-tokens'] ?? 16000), temperature }) };
}
