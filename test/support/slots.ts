/**
 * At most `max` of the calls run at once; the others wait their turn in order. For tests that start servers and runs
 * side by side: a saturated worker would measure the machine, not the target.
 */
export function slots(max: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (running >= max) await new Promise<void>((r) => waiting.push(r));
    running++;
    try {
      return await fn();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}
