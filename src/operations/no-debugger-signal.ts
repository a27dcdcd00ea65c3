// Node.js opens its inspector on 127.0.0.1:9229 when it gets SIGUSR1, and anyone on the machine
// who can reach that port can run code in the process (and read the traffic it holds). A listener
// of SIGUSR1 takes the signal over in every Node.js line (the inspector's own handler is replaced),
// so the signal is ignored. The executable is also started with --disable-sigusr1 (see
// scripts/build-exe.mjs), which closes the moment before this listener is set.

/** Ignores SIGUSR1, so that it opens no debugger port. */
export function noDebuggerOnSignal(): void {
  if (process.platform === 'win32') return;
  if (process.listenerCount('SIGUSR1') === 0) process.on('SIGUSR1', () => {});
}
