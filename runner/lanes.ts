/**
 * At most `size` jobs at once, the others waiting their turn in the order they came: how --concurrency bounds the
 * suites side by side and the requests in flight, whatever runs concurrently.
 */
export interface Lanes {
  readonly size: number;
  run<T>(job: () => Promise<T>): Promise<T>;
}

export function lanesOf(size: number): Lanes {
  let running = 0;
  const queue: (() => void)[] = [];
  return {
    size,
    async run(job) {
      if (running < size) running++;
      // A job that ends hands its lane to the first waiting: none arriving meanwhile can slip in before it.
      else await new Promise<void>((r) => queue.push(r));
      try {
        return await job();
      } finally {
        const next = queue.shift();
        if (next) next();
        else running--;
      }
    },
  };
}
