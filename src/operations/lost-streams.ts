// A session outlives its console: `proxy … | head -3`, a closed terminal, an ssh session gone.
// A write to a stdout or stderr whose reader went away fails (EPIPE, EIO); unheard, that error
// would end the process. Once a stream fails it is written to no more, and the session goes on
// silently: its reports are files, written at the end.

let guarded = false;

function guard(stream: NodeJS.WriteStream): void {
  stream.on('error', () => {
    // Nothing more is written to it: each write would fail again.
    stream.write = (() => true) as typeof stream.write;
  });
}

/** Keeps stdout and stderr failing from ending the process (idempotent). */
export function surviveLostStreams(): void {
  if (guarded) return;
  guarded = true;
  guard(process.stdout);
  guard(process.stderr);
}
