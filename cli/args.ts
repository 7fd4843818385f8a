/** Command-line parsing with node:util; an unknown or malformed flag is a usage error naming the flag (exit 2). */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { HarnessError } from '../config/errors.js';

export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(
  argv: string[],
  options: T,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals });
  } catch (e) {
    const err = e as { code?: string; message: string };
    throw new HarnessError('PSC_USAGE', err.message.replace(/\. To specify a positional argument.*$/s, ''));
  }
}
