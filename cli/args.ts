/**
 * Command-line parsing with node:util over the options tables of cli/commands.ts, and every usage text generated from
 * them. An unknown or malformed flag is a usage error naming the flag, suggesting the nearest valid one, and followed
 * by the command's usage (exit 2); `--help`/`-h` and `--version` are understood by every command.
 */
import { parseArgs } from 'node:util';
import { exitCodeOf, HarnessError } from '../errors/catalogue.js';
import { suggestion } from '../config/suggest.js';
import { scrub } from '../http/redact.js';
import { toolVersion } from '../http/user-agent.js';
import type { CommandSpec } from './commands.js';

export { nearest, suggestion } from '../config/suggest.js';

export const TOOL = 'petstore-conformance';

/** One flag of an options table: what parseArgs needs, and what the usage shows. */
export interface Flag {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  readonly short?: string;
  readonly default?: string | boolean;
  /** The value's name in the usage (string flags): `--target URL`. */
  readonly value?: string;
  readonly help: string;
}

/** Flags every command understands besides its own. */
const COMMON: Readonly<Record<string, Flag>> = {
  help: { type: 'boolean', short: 'h', help: 'print this help and exit' },
  version: { type: 'boolean', help: "print the tool's version and exit" },
};

/** A mistake in the command line itself: the message, then the command's usage. */
export class UsageError extends HarnessError<'PSC_USAGE'> {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super('PSC_USAGE', message);
    this.name = 'UsageError';
  }
}

const WIDTH = 118;

/** The usage lines of a command: `usage: petstore-conformance run [--target URL] ...`, wrapped under its name. */
export function usageText(spec: CommandSpec, prefix = 'usage: '): string {
  const head = `${prefix}${TOOL} ${spec.name}`;
  const words = [
    ...(spec.positionals ? [spec.positionals] : []),
    ...Object.entries(spec.flags).map(
      ([name, f]) => `[--${name}${f.type === 'string' ? ` ${f.value ?? 'VALUE'}` : ''}]${f.multiple ? '...' : ''}`,
    ),
  ];
  const indent = ' '.repeat(head.length + 1);
  const lines: string[] = [];
  let line = head;
  for (const w of words) {
    if (line.length + 1 + w.length > WIDTH && line !== head && line.trim() !== '') {
      lines.push(line);
      line = indent + w;
    } else line += ` ${w}`;
  }
  lines.push(line);
  return lines.join('\n');
}

/** Words of `text` in lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const w of text.split(' ')) {
    if (line && line.length + 1 + w.length > width) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  return [...lines, line];
}

/** A command's --help: what it does, its usage, and every flag with its meaning. */
export function helpText(spec: CommandSpec): string {
  const rows = Object.entries({ ...spec.flags, ...COMMON }).map(([name, f]) => [
    `${f.short ? `-${f.short}, ` : '    '}--${name}${f.type === 'string' ? ` ${f.value ?? 'VALUE'}` : ''}`,
    `${f.help}${f.multiple && !/repeatable/.test(f.help) ? ' (repeatable)' : ''}`,
  ]);
  const width = Math.min(30, Math.max(...rows.map(([l]) => l!.length)));
  const pad = ' '.repeat(width + 4);
  const options = rows.map(([l, r]) => {
    const text = wrap(r!, WIDTH - pad.length);
    const first = l!.length > width ? [`  ${l}`, `${pad}${text[0]}`] : [`  ${l!.padEnd(width)}  ${text[0]}`];
    return [...first, ...text.slice(1).map((t) => pad + t)].join('\n');
  });
  return `${TOOL} ${spec.name}: ${spec.summary}\n\n${usageText(spec)}\n\nOptions:\n${options.join('\n')}\n${
    spec.notes?.length ? `\n${spec.notes.join('\n')}\n` : ''
  }`;
}

type Tables<F> = F & typeof COMMON;

/** What a command line asks: its values and positionals, or only the help or the version. */
export type Parsed<F extends Readonly<Record<string, Flag>>> =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'version'; readonly text: string }
  | {
      readonly kind: 'args';
      readonly values: ReturnType<typeof parseArgs<{ args: string[]; options: Tables<F>; strict: true }>>['values'];
      readonly positionals: string[];
    };

/**
 * Parses `argv` (the words after the command) with the command's options table. `--help`/`-h` and `--version` win
 * over anything else on the line, so a user can always ask.
 */
export function parseCommand<F extends Readonly<Record<string, Flag>>>(
  argv: readonly string[],
  spec: CommandSpec & { flags: F },
): Parsed<F> {
  const options = { ...spec.flags, ...COMMON } as Tables<F>;
  const words = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length);
  if (words.includes('--help') || words.includes('-h')) return { kind: 'help', text: helpText(spec) };
  if (words.includes('--version')) return { kind: 'version', text: `${toolVersion()}\n` };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...argv], options, strict: true, allowPositionals: spec.positionals !== undefined });
  } catch (e) {
    throw new UsageError(`${spec.name}: ${describeParseError(e as Error, spec)}`, usageText(spec));
  }
  return { kind: 'args', values: parsed.values as never, positionals: parsed.positionals };
}

/** parseArgs's message, said plainly, with the nearest valid flag for an unknown one. */
function describeParseError(e: Error & { code?: string }, spec: CommandSpec): string {
  const flags = Object.keys({ ...spec.flags, ...COMMON }).map((n) => `--${n}`);
  const unknown = /^Unknown option '([^']+)'/.exec(e.message);
  if (unknown) return `unknown option ${unknown[1]}${suggestion(unknown[1]!.replace(/=.*$/, ''), flags)}`;
  const positional = /^Unexpected argument '([^']*)'/.exec(e.message);
  if (positional) return `unexpected argument "${positional[1]}" (${spec.name} takes no positional argument)`;
  const missing = /^Option '(-\S+?)(?:, (--\S+))? <value>' argument missing/.exec(e.message);
  if (missing) return `${missing[2] ?? missing[1]} needs a value`;
  const noValue = /^Option '(-\S+?)(?:, (--\S+))?' does not take an argument/.exec(e.message);
  if (noValue) return `${noValue[2] ?? noValue[1]} takes no value`;
  return e.message.replace(/\. To specify a positional argument.*$/s, '');
}

/** Throws the usage error for a command that lacks its positional arguments. */
export function missingPositional(spec: CommandSpec, what: string): never {
  throw new UsageError(`${spec.name}: ${what}`, usageText(spec));
}

/**
 * How every command reports an error: `petstore-conformance: message [CODE]` (its `line`, keys scrubbed), the
 * command's usage after it for a usage error only, and the exit code it ends in.
 */
export function errorReport(e: unknown): { line: string; usage: string | null; exitCode: number } {
  if (e instanceof HarnessError)
    return {
      line: scrub(`${e.message} [${e.code}]`),
      usage: e instanceof UsageError ? e.usage : null,
      exitCode: e.exitCode,
    };
  return {
    line: scrub(`internal error [PSC_HARNESS]: ${(e as Error)?.stack ?? String(e)}`),
    usage: null,
    exitCode: exitCodeOf(e),
  };
}

/** errorReport as the text a command writes to its stderr. */
export function errorText(e: unknown): string {
  const r = errorReport(e);
  return `${TOOL}: ${r.line}\n${r.usage === null ? '' : `${r.usage}\n`}`;
}
