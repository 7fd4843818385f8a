/**
 * The history index <out>/history.json: one entry per run, appended, so each night is compared with the earlier ones.
 * Bounded: only the most recent MAX_ENTRIES are kept.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HistoryEntry } from './model.js';

export const MAX_ENTRIES = 400;

export interface HistoryFile {
  readonly schemaVersion: 1;
  readonly runs: readonly HistoryEntry[];
}

export function historyPath(outDir: string): string {
  return join(outDir, 'history.json');
}

/** The history, oldest first; a missing or unreadable file is an empty history (the run says so in its trend). */
export function readHistory(outDir: string): HistoryEntry[] {
  const file = historyPath(outDir);
  if (!existsSync(file)) return [];
  try {
    const data = JSON.parse(readFileSync(file, 'utf8')) as Partial<HistoryFile>;
    return Array.isArray(data.runs) ? [...data.runs] : [];
  } catch {
    return [];
  }
}

export function appendHistory(outDir: string, entry: HistoryEntry): void {
  const runs = [...readHistory(outDir), entry].slice(-MAX_ENTRIES);
  const file: HistoryFile = { schemaVersion: 1, runs };
  writeFileSync(historyPath(outDir), `${JSON.stringify(file, null, 2)}\n`);
}

/** Earlier runs comparable with this one (same profile and target). */
export function comparable(history: readonly HistoryEntry[], profile: string, target: string): HistoryEntry[] {
  return history.filter((h) => h.profile === profile && h.target === target);
}
