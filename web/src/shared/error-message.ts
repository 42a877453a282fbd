// What the user reads about a failure. The envelope's data.code picks a message from the locale files
// (errors.codes.<CODE>), with the caller's parameters (the name it sent) and the server's (seconds to wait) when the
// message has a variant for them (errors.param.<CODE>). The server's msg is English meant for logs and scripts; it is
// shown only for a code this app does not know yet, so a newer server still explains itself.
import type { ErrorCode } from '../api/gen/model/errorCode.ts';
import { HcsError } from '../api/hcs-error.ts';
import { i18n } from './i18n.ts';

/** Values a caller knows about the failed request, e.g. the name it tried to create. */
export type MessageParams = { name?: string } & Record<string, string | number | undefined>;

/**
 * Codes whose message has a variant naming a parameter, and the parameter it needs. The variant is used only when
 * that parameter is known, so no message ever shows an empty placeholder.
 */
export const PARAM_VARIANTS: Readonly<Partial<Record<ErrorCode, string>>> = {
  NAME_EXISTS: 'name',
  NAME_INVALID: 'name',
  NOT_FOUND: 'name',
  FORBIDDEN: 'name',
  RATE_LIMITED: 'seconds',
};

/** Codes the web client makes up itself for failures that never reached a server answer. */
const CLIENT_CODES: Readonly<Record<string, string>> = {
  NETWORK: 'errors.network',
  TIMEOUT: 'requestTimedOut',
  REDIRECT: 'errors.unexpected',
  ABORTED: 'errors.unexpected',
};

/** An error whose text is already a locale key (thrown by the app itself, never by the server). */
export class LocalizedError extends Error {
  readonly messageKey: string;
  readonly values: Record<string, string | number> | undefined;
  constructor(messageKey: string, values?: Record<string, string | number>) {
    super(messageKey);
    this.name = 'LocalizedError';
    this.messageKey = messageKey;
    this.values = values;
  }
}

/** Whether the locale files have a message for this envelope code. */
export function hasCodeMessage(code: string): boolean {
  return i18n.exists(`errors.codes.${code}`);
}

/** The message for an envelope code, or undefined when the code is unknown to this app. */
export function codeMessage(code: string, params: MessageParams = {}): string | undefined {
  if (!hasCodeMessage(code)) return undefined;
  const param = PARAM_VARIANTS[code as ErrorCode];
  const value = param ? params[param] : undefined;
  if (param && value !== undefined && value !== '' && i18n.exists(`errors.param.${code}`)) {
    return i18n.t(`errors.param.${code}`, { ...params, [param]: value });
  }
  return i18n.t(`errors.codes.${code}`, params);
}

/** Server messages that are locale keys (older servers answer 'accountFrozen'), else the text itself. */
function serverText(msg: string): string {
  return msg && i18n.exists(msg) ? i18n.t(msg) : msg;
}

/** The one text to show for any failure. */
export function errorMessage(err: unknown, params: MessageParams = {}): string {
  if (err instanceof HcsError) {
    const client = CLIENT_CODES[err.code];
    if (client) return i18n.t(client);
    const byCode = codeMessage(err.code, { ...params, ...(err.retryAfterSeconds !== undefined ? { seconds: err.retryAfterSeconds } : {}) });
    if (byCode !== undefined) return byCode;
    return (err.message !== err.code && serverText(err.message)) || i18n.t('errors.unexpected');
  }
  if (err instanceof LocalizedError) return i18n.t(err.messageKey, err.values ?? {});
  const key = (err as { messageKey?: unknown } | null)?.messageKey;
  if (typeof key === 'string' && i18n.exists(key)) return i18n.t(key);
  // A bug or a browser failure: its English text means nothing to the user (the console has it).
  return i18n.t('errors.unexpected');
}
