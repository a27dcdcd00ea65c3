import { ServiceBase } from '../validate/scope.js';
import { recordedExchanges } from './recorded-exchanges.js';
import { replayBody } from './replay-request.js';

// Whether a replay would send any checkout or upload request at all. When none can be sent (every
// body a digest), no order is placed on the target for nothing: a staging service is left as it was.

export async function holdsReplayableRequest(files: string[], recordedBase?: string): Promise<boolean> {
  const base = new ServiceBase(recordedBase);
  for await (const item of recordedExchanges(files)) {
    if ('warning' in item) continue;
    const scope = base.scopeOf(item.exchange);
    if (scope.kind !== 'interface' && scope.kind !== 'misaddressed') continue;
    const { body, headers } = item.exchange.request;
    if (!('reason' in replayBody(body, headers))) return true;
  }
  return false;
}
