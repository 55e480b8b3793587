import { createLogger, type Logger } from '@opi/config';

export { createLogger, type Logger, type LogLevel } from '@opi/config';

/** A logger that drops everything (tests). */
export const silentLogger: Logger = createLogger('wallet-sandbox', 'silent');
