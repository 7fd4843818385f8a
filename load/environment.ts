/** What the report says about the machine that generated the load, and how hard the generator itself worked. */
import { createRequire } from 'node:module';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Environment, GeneratorHealth } from './model.js';

const require = createRequire(import.meta.url);

export function environment(): Environment {
  const cpus = os.cpus();
  return {
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    totalMemoryMb: Math.round(os.totalmem() / 2 ** 20),
    autocannon: (require('autocannon/package.json') as { version: string }).version,
    tool: (require('../package.json') as { version: string }).version,
  };
}

/** Starts measuring the generator; the returned function stops and reports. */
export function startGeneratorHealth(): () => GeneratorHealth {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  return () => {
    loop.disable();
    const cpu = process.cpuUsage(cpu0);
    const wallMs = performance.now() - t0;
    const round = (n: number) => Math.round(n * 10) / 10;
    return {
      wallSeconds: round(wallMs / 1000),
      cpuUserMs: Math.round(cpu.user / 1000),
      cpuSystemMs: Math.round(cpu.system / 1000),
      cpuPercent: round(((cpu.user + cpu.system) / 1000 / Math.max(wallMs, 1)) * 100),
      peakRssMb: round(process.resourceUsage().maxRSS / 1024),
      eventLoopDelayP99Ms: round(loop.percentile(99) / 1e6),
    };
  };
}

/** The generator during one scenario: CPU over its wall time and its busiest second, event-loop delay p99. */
export function startScenarioHealth(): {
  tick(): void;
  stop(): { cpuPercent: number; peakCpuPercent: number; eventLoopDelayP99Ms: number };
} {
  // CPU over the whole scenario and the event-loop delay are the generator's health over it; the peak is measured here.
  const stopWhole = startGeneratorHealth();
  let lastCpu = process.cpuUsage();
  let lastT = performance.now();
  let peak = 0;
  const percent = (from: NodeJS.CpuUsage, to: NodeJS.CpuUsage, ms: number) =>
    ((to.user - from.user + to.system - from.system) / 1000 / Math.max(ms, 1)) * 100;
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    tick() {
      const now = performance.now();
      // A second at least: shorter spans read noise as peaks.
      if (now - lastT < 900) return;
      const cpu = process.cpuUsage();
      peak = Math.max(peak, percent(lastCpu, cpu, now - lastT));
      lastCpu = cpu;
      lastT = now;
    },
    stop() {
      const now = performance.now();
      const cpu = process.cpuUsage();
      if (now - lastT >= 900) peak = Math.max(peak, percent(lastCpu, cpu, now - lastT));
      const { cpuPercent, eventLoopDelayP99Ms } = stopWhole();
      // Rounding is monotonic: the larger of the peak and the rounded whole rounds as the larger of the two unrounded.
      return { cpuPercent, peakCpuPercent: round(Math.max(peak, cpuPercent)), eventLoopDelayP99Ms };
    },
  };
}
