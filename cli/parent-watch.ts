/**
 * `serve` ends when whoever started it ends. Started through `npx` (npm, then possibly `sh -c`, then this process), a
 * `kill $!` reaches npm only: the server would be left running, an orphan holding its port. So the process watches
 * its parent and, when that parent is a shell that only runs this command (`sh -c …`), the shell's parent too: when
 * either is gone (this process or the shell re-parented), `onGone` is called. Linux shows a process's parent in
 * /proc; elsewhere the watch asks whether the parent it started with still exists.
 */
import { readFileSync } from 'node:fs';

/** The parent pid of `pid`, or null when /proc does not tell (not Linux, or the process is gone). */
function parentOf(pid: number): number | null {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses, so read after the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

/** Whether `pid` is a shell running one command line (`sh -c …`), as npm runs a package's bin. */
function isShellRunningCommand(pid: number): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return /(^|\/)(sh|dash|bash|zsh)$/.test(argv[0] ?? '') && argv.includes('-c');
  } catch {
    return false;
  }
}

/** Whether a process exists (signal 0 only asks); one we may not signal exists too. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The processes that started this one, as they are now: read before anything could have ended them. */
export interface Ancestry {
  readonly parent: number;
  /** The parent's parent when the parent is a `sh -c` shell, else null. */
  readonly grandparent: number | null;
}

export function ancestry(): Ancestry {
  // process.ppid is read once, at start-up: the parent that started this process.
  const parent = process.ppid;
  return { parent, grandparent: isShellRunningCommand(parent) ? parentOf(parent) : null };
}

/**
 * Calls `onGone` once when the parent of `from` (or a `sh -c` parent's parent) has gone; returns a function that stops
 * watching.
 */
export function watchParent(onGone: () => void, from: Ancestry = ancestry(), everyMs = 500): () => void {
  const { parent, grandparent } = from;
  const timer = setInterval(() => {
    const own = parentOf(process.pid);
    const gone =
      !alive(parent) ||
      (own !== null && own !== parent) ||
      (grandparent !== null && (!alive(grandparent) || parentOf(parent) !== grandparent));
    if (!gone) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  // The server keeps the process alive, not this watch.
  timer.unref();
  return () => clearInterval(timer);
}
