import { type ParsedTokenInfo, Tokenizer, TokenParser, TokenType } from '@streamparser/json';
import { UsageError } from '../findings/usage-error.js';
import { redactText } from '../redaction/index.js';
import type { Exchange } from '../validate/exchange.js';
import { exchangeOfHarEntry } from './har.js';

// Reads a HAR file entry by entry, as it streams in: a HAR of gigabytes is never held whole (no
// string could hold it), only the entry being parsed. A document cut off before it was closed (a
// proxy killed mid-write) gives the entries before the cut, with a warning.

/** An entry read, by its place in log.entries (counting from 1), or why it was skipped. */
export type HarItem = { entry: number; exchange: Exchange } | { entry: number; warning: string };

/**
 * Tells from the tokens whether `log.entries` opens as a list. The parser's path selection says
 * nothing about an empty, missing or misshapen `entries`, and asking it for `log.entries` itself
 * would make it keep every entry. Looks only at the tokens before the list opens.
 */
class EntriesWatch {
  state: 'looking' | 'list' | 'not a list' = 'looking';
  private depth = 0;
  /** The last key read at each depth: the path of the value being read. */
  private readonly keys: (string | undefined)[] = [];
  private lastString: string | undefined;
  private afterColon = false;

  see({ token, value }: ParsedTokenInfo): void {
    if (token === TokenType.COLON) {
      this.keys[this.depth] = this.lastString;
      this.afterColon = true;
      return;
    }
    if (this.afterColon && this.depth === 2 && this.keys[1] === 'log' && this.keys[2] === 'entries')
      this.state = token === TokenType.LEFT_BRACKET ? 'list' : 'not a list';
    this.afterColon = false;
    if (token === TokenType.STRING) this.lastString = value as string;
    else if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) this.depth += 1;
    else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) this.depth -= 1;
  }
}

interface Failure {
  message: string;
  /** Found when the input ended, not in the middle of it: the document was cut off. */
  atEnd: boolean;
  /** Found after the document had closed: something trails it. */
  afterDocument: boolean;
}

function itemOf(value: unknown, entry: number): HarItem {
  try {
    return { entry, exchange: exchangeOfHarEntry(value) };
  } catch (error) {
    return { entry, warning: `HAR entry ${entry} skipped: ${(error as Error).message}` };
  }
}

/** The entries of a HAR document, in batches as its bytes come; `name` names it in messages. */
export async function* harItems(chunks: AsyncIterable<Buffer>, name: string): AsyncGenerator<HarItem[]> {
  // Strings are gathered in a byte buffer rather than by concatenation: quicker on long bodies.
  const tokenizer = new Tokenizer({ stringBufferSize: 64 * 1024 });
  const parser = new TokenParser({ paths: ['$.log.entries.*'], keepStack: false });
  const watch = new EntriesWatch();
  let ready: HarItem[] = [];
  let entries = 0;
  let ending = false;
  let failure: Failure | undefined;
  const parse = parser.write.bind(parser);
  tokenizer.onToken = (token) => {
    watch.see(token);
    // Once the list has opened (or shown it is none), tokens go straight to the parser.
    if (watch.state !== 'looking') tokenizer.onToken = parse;
    parse(token);
  };
  tokenizer.onEnd = () => {
    if (!parser.isEnded) parser.end();
  };
  parser.onEnd = () => {
    if (!tokenizer.isEnded) tokenizer.end();
  };
  parser.onError = tokenizer.error.bind(tokenizer);
  tokenizer.onError = (error) => {
    failure ??= { message: error.message, atEnd: ending, afterDocument: parser.isEnded };
  };
  parser.onValue = ({ value, parent }) => {
    // `entries` written as an object has members, not entries.
    if (!Array.isArray(parent)) return;
    entries += 1;
    ready.push(itemOf(value, entries));
  };

  for await (const chunk of chunks) {
    tokenizer.write(chunk);
    if (ready.length > 0) {
      yield ready;
      ready = [];
    }
    if (failure) break;
  }
  ending = true;
  if (!failure && !tokenizer.isEnded) tokenizer.end();

  const found = failure as Failure | undefined;
  if (found && !found.afterDocument) {
    // The parser's message quotes the text around the fault, which may be a credential.
    if (entries === 0) throw new UsageError(`${name} is not valid HAR: ${redactText(found.message)}`);
    const read = `its first ${entries} entries were read`;
    ready.push({
      entry: entries + 1,
      warning: found.atEnd
        ? `the HAR document ends early (cut off before it was closed?): ${read}`
        : `the HAR document breaks off after entry ${entries} (${found.message}): ${read}`,
    });
  } else if (watch.state !== 'list') throw new UsageError(`${name} is not valid HAR: log.entries is missing`);
  else if (found) ready.push({ entry: entries, warning: 'text after the end of the HAR document ignored' });
  if (ready.length > 0) yield ready;
}
