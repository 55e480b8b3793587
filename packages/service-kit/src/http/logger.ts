// The shared structured logger lives in @opi/config.
export { createLogger, type Logger, type LogLevel } from '@opi/config';
