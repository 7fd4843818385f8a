/**
 * The last gate before text leaves the process: if any known key appears in it, the run refuses to write it.
 * Keys are placeholders by construction everywhere else; finding one here is a bug of the harness, so it is loud.
 */
import { HarnessError } from '../errors/catalogue.js';
import { knownSecrets } from '../http/redact.js';

export function leakedSecrets(text: string): string[] {
  return knownSecrets()
    .filter((k) => k.reveal().length >= 6 && text.includes(k.reveal()))
    .map((k) => k.placeholder);
}

export function guardSecrets(text: string, where: string): string {
  const leaked = leakedSecrets(text);
  if (leaked.length > 0)
    throw new HarnessError(
      'PSC_SECRET_LEAK',
      `refusing to write ${where}: it contains the value of ${leaked.join(', ')}`,
    );
  return text;
}
