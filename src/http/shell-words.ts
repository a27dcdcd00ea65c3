// Words for a POSIX shell command a person pastes. Every literal is single-quoted (nothing inside
// single quotes is expanded: no $, no backquote, no backslash escape); the only expansions are
// the placeholders put there on purpose, "$NAME" in double quotes, for credentials kept out.

/** A piece of a shell word: literal text, or an environment variable the person sets. */
export type Piece = string | { env: string };

/** Characters that need no quoting in any POSIX shell. */
const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** A literal as one shell word: as it is when safe, else single-quoted ('\'' for a quote). */
export function quoteLiteral(text: string): string {
  if (SAFE.test(text)) return text;
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/** A valid environment variable name made from any label: X-Api-Key → X_API_KEY. */
export function envName(label: string): string {
  const name = label.toUpperCase().replace(/[^A-Z0-9_]+/g, '_');
  return /^[A-Z_]/.test(name) ? name : `_${name}`;
}

/** Pieces joined into one shell word: 'Bearer '"$TOKEN". */
export function shellWord(pieces: readonly Piece[]): string {
  const parts: string[] = [];
  let literal = '';
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      literal += piece;
      continue;
    }
    // Quoted apart from each other, so no literal text runs into the name of the variable.
    if (literal !== '') parts.push(`'${literal.replace(/'/g, "'\\''")}'`);
    literal = '';
    parts.push(`"$${piece.env}"`);
  }
  if (literal !== '' || parts.length === 0) {
    parts.push(parts.length === 0 ? quoteLiteral(literal) : `'${literal.replace(/'/g, "'\\''")}'`);
  }
  return parts.join('');
}

/**
 * Splits text at each secret, putting a placeholder in its place. Secrets shorter than four
 * characters are left, as redaction leaves them: they would match all over ordinary text.
 */
export function withPlaceholders(text: string, secrets: readonly { value: string; env: string }[]): Piece[] {
  let pieces: Piece[] = [text];
  for (const secret of secrets) {
    if (secret.value.length < 4) continue;
    const next: Piece[] = [];
    for (const piece of pieces) {
      if (typeof piece !== 'string' || !piece.includes(secret.value)) {
        next.push(piece);
        continue;
      }
      piece.split(secret.value).forEach((part, index) => {
        if (index > 0) next.push({ env: secret.env });
        if (part !== '') next.push(part);
      });
    }
    pieces = next;
  }
  return pieces;
}

/** Bytes as a printf format: printable ASCII as it is, the rest as octal escapes; UTF-8 text kept. */
function printfFormat(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\\') out += '\\\\';
    else if (char === '%') out += '%%';
    else if (char === '\n') out += '\\n';
    else if (code >= 0x20 && code < 0x7f) out += char;
    else if (code >= 0xa0) out += char;
    else for (const byte of Buffer.from(char, 'utf8')) out += `\\${byte.toString(8).padStart(3, '0')}`;
  }
  return out;
}

/** A format starting with "-" would be read as an option: its dash is written as an escape. */
function leadingDashEscaped(format: string): string {
  return format.startsWith('-') ? `\\055${format.slice(1)}` : format;
}

/**
 * A printf command writing exactly these bytes to its output, for bodies no shell word can carry
 * (line breaks, control characters, binary). Placeholders become %s arguments.
 */
export function printfCommand(pieces: readonly Piece[] | Buffer): string {
  if (Buffer.isBuffer(pieces)) {
    let format = '';
    for (const byte of pieces) {
      if (byte === 0x5c) format += '\\\\';
      else if (byte === 0x25) format += '%%';
      else if (byte >= 0x20 && byte < 0x7f) format += String.fromCharCode(byte);
      else format += `\\${byte.toString(8).padStart(3, '0')}`;
    }
    return `printf ${quoteLiteral(leadingDashEscaped(format))}`;
  }
  let format = '';
  const args: string[] = [];
  for (const piece of pieces) {
    if (typeof piece === 'string') format += printfFormat(piece);
    else {
      format += '%s';
      args.push(`"$${piece.env}"`);
    }
  }
  return ['printf', quoteLiteral(leadingDashEscaped(format)), ...args].join(' ');
}
