import type { LogLevel as ProjectLevel, Logger as ProjectLogger } from '@opi/config';
import {
  type LogMetadata,
  Runtime,
  type LogLevel as SdkLevel,
  type Logger as SdkLogger,
} from '@temporalio/worker';

/** The SDK's levels onto the project's (TRACE and DEBUG are both debug). */
const LEVEL: Record<SdkLevel, Exclude<ProjectLevel, 'silent'>> = {
  TRACE: 'debug',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};
const ORDER: Record<ProjectLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
/** Keys of the project's own line that an SDK field must not overwrite. */
const RESERVED = new Set(['time', 'level', 'service', 'msg']);
/** Fields of no use in a log line (an opaque task token). */
const DROPPED = new Set(['taskToken']);

/**
 * The Temporal SDK's logger writing through the project's: one JSON line per entry at the mapped
 * level, entries below `level` dropped. The metadata's scalars are kept (taskQueue, namespace,
 * workflowId, workflowRunId, workflowType, activityType, attempt, state, durationMs, a Core entry's
 * target; not the task token), `sdkComponent` as `temporal` (worker, activity, workflow, core); an
 * error becomes its message, and its stack only on an error line or under LOG_LEVEL=debug. Objects
 * (span contexts) are dropped.
 */
export function temporalLogger(level: ProjectLevel, log: ProjectLogger): SdkLogger {
  const threshold = ORDER[level];
  const write = (sdkLevel: SdkLevel, message: string, meta?: LogMetadata) => {
    const lvl = LEVEL[sdkLevel] ?? 'info';
    if (ORDER[lvl] < threshold) return;
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(meta ?? {})) {
      if (DROPPED.has(key)) continue;
      const name = key === 'sdkComponent' ? 'temporal' : RESERVED.has(key) ? `temporal_${key}` : key;
      if (value instanceof Error) {
        fields[name] = value.message;
        if (lvl === 'error' || level === 'debug') fields[`${name}_stack`] = value.stack;
      } else if (['string', 'number', 'boolean', 'bigint'].includes(typeof value)) {
        fields[name] = value;
      }
    }
    log[lvl](message, fields);
  };
  return {
    log: write,
    trace: (m, meta) => write('TRACE', m, meta),
    debug: (m, meta) => write('DEBUG', m, meta),
    info: (m, meta) => write('INFO', m, meta),
    warn: (m, meta) => write('WARN', m, meta),
    error: (m, meta) => write('ERROR', m, meta),
  };
}

export interface TemporalRuntimeOptions {
  /** The process's LOG_LEVEL: SDK entries below it are dropped. */
  level: ProjectLevel;
  log: ProjectLogger;
  /** Signals on which the SDK shuts its workers down (its default: SIGINT, SIGTERM, SIGQUIT, SIGUSR2). */
  shutdownSignals?: NodeJS.Signals[];
  /**
   * `host:port` for the SDK's own Prometheus metrics (TEMPORAL_SDK_METRICS_PORT): the Core's
   * exporter, counters with `_total`, durations in milliseconds (the SDK's default), every series
   * labelled service_name="temporal-core-sdk" plus its namespace and task_queue.
   */
  metricsAddress?: string;
}

const INSTALLED = Symbol.for('opi.temporal-runtime-installed');

/**
 * Runtime.install once per process, before any Worker or NativeConnection exists: the SDK's own
 * entries ("Worker state changed", "Activity failed") and the Core's (forwarded, WARN and above)
 * go through the project's logger instead of the SDK's multi-line console output. A second call is
 * a no-op ('already': the first call's level and signals stay); if a Runtime was already created
 * with the SDK's defaults (a Worker made first), it cannot be replaced: 'too-late', said once at
 * warn. The options outlive a Runtime shut down with its last worker: the SDK re-creates it with
 * them.
 */
export function installTemporalRuntime(
  options: TemporalRuntimeOptions,
): 'installed' | 'already' | 'too-late' {
  const g = globalThis as { [INSTALLED]?: true };
  if (g[INSTALLED]) return 'already';
  g[INSTALLED] = true;
  if (Runtime._instance !== undefined) {
    options.log.warn('temporal runtime already created with the SDK defaults; its logs are not routed', {});
    return 'too-late';
  }
  const runtime = Runtime.install({
    logger: temporalLogger(options.level, options.log),
    telemetryOptions: {
      logging: {
        // The Core's own entries: warnings and errors (errors only under LOG_LEVEL=error).
        filter: { core: ORDER[options.level] > ORDER.warn ? 'ERROR' : 'WARN', other: 'ERROR' },
        forward: {},
      },
      ...(options.metricsAddress
        ? { metrics: { prometheus: { bindAddress: options.metricsAddress, countersTotalSuffix: true } } }
        : {}),
    },
    ...(options.shutdownSignals ? { shutdownSignals: options.shutdownSignals } : {}),
  });
  // Installing creates the Runtime at once, and an idle one (no Worker or NativeConnection ever
  // made in this process: a test of HTTP only, a process whose workers are children) keeps the
  // process alive after its work. Let it go now: the SDK re-creates it with these options (logger,
  // signals) when the first Worker or NativeConnection needs it. With metrics it stays: its
  // exporter holds the port, and a process that exports them runs a worker anyway.
  if (!options.metricsAddress) void runtime.shutdown();
  return 'installed';
}

const LEVELS = new Set<string>(Object.keys(ORDER));

/**
 * The level of the SDK's lines in a test process: the run's LOG_LEVEL (`LOG_LEVEL=debug npm test`
 * shows every SDK line), else warn: a passing test prints no "Worker state changed", a failing one
 * still shows the SDK's warnings and errors (an activity's failure, a workflow task's), one line each.
 */
export function testTemporalLevel(env: NodeJS.ProcessEnv = process.env): ProjectLevel {
  const level = env.LOG_LEVEL;
  return level && LEVELS.has(level) ? (level as ProjectLevel) : 'warn';
}
