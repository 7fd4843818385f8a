/**
 * The reference page of the command (docs/reference.md): every command with its usage and flags, and every environment
 * variable, rendered from the tables the command itself runs on (cli/commands.ts, config/environment.ts), never
 * written by hand. `npm run docs` writes it; a test fails when the committed page differs from what this renders.
 */
import { ENVIRONMENT, type EnvironmentVariable } from '../config/environment.js';
import { type CommandSpec, COMMANDS } from './commands.js';
import { TOOL, usageText } from './args.js';

/** Where the page lives in the repository, and the command that rewrites it. */
export const REFERENCE_PAGE = 'docs/reference.md';
export const REFERENCE_SCRIPT = 'npm run docs';

/** A table cell: pipes escaped (GitHub's tables split on them, code spans included), on one line. */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

function commandSection(spec: CommandSpec): string {
  const rows = Object.entries(spec.flags).map(([name, f]) => {
    const flag = `--${name}${f.type === 'string' ? ` ${f.value ?? 'VALUE'}` : ''}`;
    const help = `${f.help}${f.multiple && !/repeatable/.test(f.help) ? ' (repeatable)' : ''}`;
    return `| \`${cell(flag)}\` | ${cell(help)} |`;
  });
  return [
    `## ${TOOL} ${spec.name}`,
    '',
    `${spec.summary[0]!.toUpperCase()}${spec.summary.slice(1)}.`,
    '',
    '```',
    usageText(spec),
    '```',
    '',
    ...(rows.length ? ['| flag | meaning |', '| --- | --- |', ...rows, ''] : []),
    ...(spec.notes?.length ? [...spec.notes, ''] : []),
  ].join('\n');
}

function environmentSection(environment: readonly EnvironmentVariable[]): string {
  return [
    '## Environment',
    '',
    'A `.env` file in the working directory (or `--env-file FILE`) is read too; variables already set win.',
    '',
    '| variable | meaning |',
    '| --- | --- |',
    ...environment.map((v) => `| ${v.names.map((n) => `\`${n}\``).join(', ')} | ${cell(v.help)} |`),
    '',
  ].join('\n');
}

/** The whole page, from the given tables (the command's own by default). */
export function referenceMarkdown(
  commands: readonly CommandSpec[] = COMMANDS,
  environment: readonly EnvironmentVariable[] = ENVIRONMENT,
): string {
  return [
    '# Reference: commands, flags and environment',
    '',
    `<!-- Generated from cli/commands.ts and config/environment.ts by \`${REFERENCE_SCRIPT}\`: edit those, not this page. -->`,
    '',
    `Every command also takes \`--help\` (or \`-h\`), which prints the same, and \`--version\`. A mistyped command or flag is answered with the nearest valid one.`,
    '',
    ...commands.map(commandSection),
    environmentSection(environment),
  ].join('\n');
}
