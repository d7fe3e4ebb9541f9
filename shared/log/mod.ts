/**
 * Structured logging: JSON lines on stderr, klog-style verbosity, secrets redacted.
 *
 * @module
 */
export {
  type LogFields,
  Logger,
  type LoggerOptions,
  type LogLevel,
  type LogSink,
  parseVerbosity,
  stderrSink,
  type VerboseLogger,
} from "./logger.ts";
export { isSecretFieldName, REDACTED, redactValue, scrubSecrets } from "./redact.ts";
