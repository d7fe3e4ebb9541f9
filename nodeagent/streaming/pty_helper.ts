/**
 * Commands with a terminal (`exec -t`): the process runtime has no terminal of its own, so a
 * small Python 3 program (python3's `pty` module, present on Debian hosts) runs the command
 * on a pseudo-terminal and relays between it and its own pipes. Its standard input carries
 * framed messages, so that terminal size changes travel beside the keystrokes:
 * `[type: 1 byte][length: 4 bytes, big-endian][payload]` with type 0 input bytes, 1 a size
 * (`"<columns> <rows>"`), 2 end of input. Its standard output is the terminal's output; its
 * exit status is the command's (128 + the signal's number when a signal ended it).
 *
 * @module
 */

/** The helper program, run with `python3 -c`. */
export const PTY_HELPER = `
import os, pty, sys, select, struct, fcntl, termios
pid, fd = pty.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    except OSError as e:
        sys.stderr.write("exec: %s: %s\\n" % (sys.argv[1], e.strerror))
        os._exit(127)
buf = b""
inputs = [0, fd]
while True:
    try:
        ready, _, _ = select.select(inputs, [], [])
    except InterruptedError:
        continue
    if fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if not data:
            break
        os.write(1, data)
    if 0 in ready:
        data = os.read(0, 65536)
        if not data:
            inputs.remove(0)
            continue
        buf += data
        while len(buf) >= 5:
            kind, size = buf[0], struct.unpack(">I", buf[1:5])[0]
            if len(buf) < 5 + size:
                break
            payload, buf = buf[5:5 + size], buf[5 + size:]
            if kind == 0:
                os.write(fd, payload)
            elif kind == 1:
                cols, rows = (int(x) for x in payload.split())
                fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            elif kind == 2:
                os.write(fd, b"\\x04")
_, status = os.waitpid(pid, 0)
if os.WIFSIGNALED(status):
    sys.exit(128 + os.WTERMSIG(status))
sys.exit(os.WEXITSTATUS(status))
`;

/** One framed message for the helper's standard input. */
export function ptyFrame(kind: 0 | 1 | 2, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + payload.length);
  out[0] = kind;
  new DataView(out.buffer).setUint32(1, payload.length);
  out.set(payload, 5);
  return out;
}
