/**
 * The run at rest: while the latency trend looks again at a target that seemed to slow down (runner/trend.ts), no
 * request of the run is sent but the look's own, and the look starts once nothing of the run is on the wire. A target
 * then answers what it is asked alone, after a pause: one that answers quickly again was busy, not slowing.
 */
export class RestGate {
  private resting: Promise<void> | null = null;
  private onWire = 0;
  private idle: (() => void)[] = [];

  /** Before a request is sent: waits while the run rests (a request of the look itself goes by). */
  async hold(look: boolean): Promise<void> {
    while (this.resting && !look) await this.resting;
  }

  /** Around the client's send: what is on the wire. */
  async wire<T>(send: () => Promise<T>): Promise<T> {
    this.onWire++;
    try {
      return await send();
    } finally {
      if (--this.onWire === 0) for (const done of this.idle.splice(0)) done();
    }
  }

  /** Whether the run is at rest now. */
  get atRest(): boolean {
    return this.resting !== null;
  }

  /**
   * Rests the run while `look` runs: new requests wait (hold), and `look` starts once those on the wire are answered.
   * Null when a rest is already under way.
   */
  async rest<T>(look: () => Promise<T>): Promise<T | null> {
    if (this.resting) return null;
    let release = () => {};
    this.resting = new Promise<void>((r) => {
      release = r;
    });
    try {
      if (this.onWire > 0) await new Promise<void>((r) => this.idle.push(r));
      return await look();
    } finally {
      this.resting = null;
      release();
    }
  }
}
