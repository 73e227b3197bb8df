export type { TraceRequest, TraceResult, Tracer } from './types.js';
export { traceRun } from './run.js';
export { parseStraceLog, StraceLogParser } from './parse.js';
export type { ParsedTrace, ProcessEnd, SkippedLine, TraceSkipReason } from './parse.js';
