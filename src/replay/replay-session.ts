import type { ReplaySummary } from '../findings/replay.js';
import { send } from '../http/send.js';
import { type JudgeResult, RecordingJudge } from '../recording/recording-judge.js';
import { DEFAULT_NAMES, REDACTED } from '../redaction/index.js';
import { formatOfMediaType } from '../validate/document.js';
import { type Exchange, type Headers, header, mediaType } from '../validate/exchange.js';
import { type Scope, ServiceBase } from '../validate/scope.js';
import { type AnswerKind, answerDifferences } from './answer-differences.js';
import { type OrderAnswer, readOrderAnswer } from './order-answer.js';
import { recordedExchanges } from './recorded-exchanges.js';
import { ReplayLog } from './replay-log.js';
import { type ReplayBody, replayBody, replayHeaders } from './replay-request.js';
import { holdsReplayableRequest } from './replayable.js';
import { type Mapped, ReplayMap, underTarget } from './url-map.js';

// Sends the client requests of recordings again, in their order, to another service: a fresh order
// wherever the recording placed one, each checkout/upload URL mapped to the one the new order
// gives. The new exchanges go through the same judge as `validate`'s; each new answer is compared
// with the recorded one.

export interface ReplayOptions {
  /** The service to replay against: its base URL, ending in "/". */
  target: string;
  /** Credential headers (--token, --header) sent with every request in place of redacted ones. */
  credentials: Headers;
  timeoutMs: number;
  /** The recorded service's base URL, when the recording holds other hosts or paths. */
  recordedBase?: string;
}

export interface ReplayOutcome {
  judged: JudgeResult;
  replay: ReplaySummary;
  /** Requests sent, and of those the ones that got an answer and the ones refused with 401/403. */
  sent: number;
  answered: number;
  refused: number;
  /** The first transport failure, to say why a target could not be reached. */
  firstError?: string;
  /** Recorded credential headers left out because the recording redacted them and none was given. */
  droppedCredentials: string[];
}

/** Header names whose values `run` treats as credentials too, whatever the redactor knows. */
const CREDENTIAL_NAME = /authorization|api-key|token|cookie|secret/i;

/**
 * The exchange as the judge and its reports see it: the user's credentials never reach a report.
 * Other given headers (an Accept, say) stay as sent: the judge reads them.
 */
function withoutCredentials(exchange: Exchange, credentials: Headers): Exchange {
  const headers = { ...exchange.request.headers };
  for (const name of Object.keys(credentials))
    if (name in headers && (CREDENTIAL_NAME.test(name) || DEFAULT_NAMES.isSecretKey(name))) headers[name] = REDACTED;
  return { ...exchange, request: { ...exchange.request, headers } };
}

function answerKind(operation: 'checkout' | 'files'): AnswerKind {
  return operation === 'checkout' ? 'checkout' : 'upload';
}

/** The format a recorded request sent or asked for, as the rules of its operation would be judged in. */
function recordedFormat(recorded: Exchange): 'json' | 'xml' | undefined {
  const { headers, body } = recorded.request;
  const sent = body && body.size > 0 ? formatOfMediaType(mediaType(header(headers, 'content-type'))) : undefined;
  return sent ?? formatOfMediaType(mediaType(header(headers, 'accept')));
}

export async function replayRecordings(files: string[], options: ReplayOptions): Promise<ReplayOutcome> {
  const recordedBase = new ServiceBase(options.recordedBase);
  const map = new ReplayMap(options.target);
  const judge = new RecordingJudge(options.target);
  const log = new ReplayLog();
  const dropped = new Set<string>();
  const outcome = { sent: 0, answered: 0, refused: 0, firstError: undefined as string | undefined };
  const placeOrders = await holdsReplayableRequest(files, options.recordedBase);

  for await (const item of recordedExchanges(files)) {
    if ('warning' in item) {
      judge.warn(item.warning, item.at);
      continue;
    }
    const recorded = item.exchange;
    const { method, url: recordedUrl } = recorded.request;
    let scope: Scope;
    try {
      scope = recordedBase.scopeOf(recorded);
    } catch (error) {
      // One exchange of an odd shape must not cost the replay of all the others.
      judge.warn(`line ${item.at.line} could not be read: ${(error as Error).message}; skipped`, item.at);
      continue;
    }
    if (scope.kind === 'outside') {
      judge.countOutside(scope.reason);
      log.outside();
      continue;
    }
    const base = recordedBase.known;
    const recordedOrder: OrderAnswer | undefined = scope.kind === 'order' ? readOrderAnswer(recorded) : undefined;
    const mapped: Mapped =
      scope.kind === 'order'
        ? map.orderUrl(scope.id, recordedUrl, base)
        : scope.kind === 'interface'
          ? map.interfaceUrl(recordedUrl, base)
          : base
            ? map.rebased(recordedUrl, base)
            : { reason: "the recorded service's base URL is not known" };
    const body: ReplayBody =
      scope.kind === 'order' && !placeOrders
        ? { reason: 'no checkout or upload request of the recording can be sent again, so no order is placed for them' }
        : replayBody(recorded.request.body, recorded.request.headers);
    if ('reason' in mapped || 'reason' in body) {
      // A body that was not recorded whole is what the user can fix first: it is named first.
      const why = 'reason' in body ? body.reason : 'reason' in mapped ? mapped.reason : '';
      log.notReplayed(item.at, method, recordedUrl, why, recorded.response?.status);
      if (scope.kind === 'interface') {
        const kind = `${method} ${scope.operation}`;
        if (kind === 'POST checkout' || kind === 'GET checkout' || kind === 'POST files')
          judge.notSent(kind, recordedFormat(recorded));
      }
      if (scope.kind === 'order') map.learn(recordedOrder, undefined, `${method} ${recordedUrl} was not sent again`);
      continue;
    }
    // The user's credentials are for the target alone: a URL the new order gives on another host
    // (a storage service for uploads, say) is sent without them.
    const credentials = underTarget(mapped.url, options.target) ? options.credentials : {};
    const { headers, dropped: left } = replayHeaders(recorded.request.headers, credentials);
    for (const name of left) dropped.add(name);
    const exchange = await send(
      { method, url: mapped.url, headers, ...(body.bytes ? { body: body.bytes } : {}) },
      undefined,
      options.timeoutMs,
    );
    outcome.sent += 1;
    if (exchange.response) {
      outcome.answered += 1;
      if (exchange.response.status === 401 || exchange.response.status === 403) outcome.refused += 1;
    } else outcome.firstError ??= exchange.error;

    let differences: ReturnType<typeof answerDifferences>;
    if (scope.kind === 'order') {
      const fresh = readOrderAnswer(exchange);
      const answered = exchange.response
        ? `it was answered ${exchange.response.status}`
        : `it failed (${exchange.error})`;
      map.learn(recordedOrder, fresh, `${method} ${mapped.url}: ${answered}`);
      differences = answerDifferences(recorded, exchange, 'order', {
        ...(recordedOrder ? { recorded: recordedOrder } : {}),
        ...(fresh ? { replayed: fresh } : {}),
      });
    } else differences = answerDifferences(recorded, exchange, answerKind(scope.operation));
    judge.judge(withoutCredentials(exchange, options.credentials), item.at);
    log.replayed(
      {
        at: item.at,
        method,
        recordedUrl,
        url: mapped.url,
        ...(recorded.response ? { recordedStatus: recorded.response.status } : {}),
        ...(exchange.response ? { status: exchange.response.status } : {}),
        differences: [],
      },
      differences,
    );
  }
  return { judged: judge.finish(), replay: log.data, ...outcome, droppedCredentials: [...dropped] };
}
