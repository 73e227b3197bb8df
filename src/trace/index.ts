export type { TraceRequest, TraceResult, Tracer, TracerName } from './types.js';
export { traceRun, TRACER_CHOICES, type TracerChoice, type Tracers } from './select.js';
export { straceTracer } from './strace-run.js';
export { fastTracer } from './fast/tracer.js';
export { parseStraceLog, StraceLogParser } from './parse.js';
export type { ParsedTrace, ProcessEnd, SkippedLine, TraceSkipReason } from './parse.js';
