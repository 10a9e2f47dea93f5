"""Runs a command in a pseudo-terminal and plays a script of actions against it, for REPL tests.

argv[1] is a JSON list of actions: {"type": "expect", "text": ..., "timeout": s},
{"type": "send", "text": ...}, {"type": "touch", "path": ...} (creates a file a command under
test waits for), {"type": "sleep", "seconds": ...}. Prints one JSON object:
{"ok": bool, "output": str, "code": int|null, "missing": str?}.
"""
import fcntl
import json
import os
import pty
import select
import struct
import sys
import termios
import time

actions = json.loads(sys.argv[1])
cmd = sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)
# A terminal of a usual size: 100 columns, 30 rows.
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))

buf = b""


def pump(timeout):
    global buf
    r, _, _ = select.select([fd], [], [], timeout)
    if not r:
        return True
    try:
        data = os.read(fd, 65536)
    except OSError:
        return False
    if not data:
        return False
    buf += data
    return True


def read_until(text, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if text.encode() in buf:
            return True
        if not pump(0.05):
            break
    return text.encode() in buf


for a in actions:
    if a["type"] == "expect":
        if not read_until(a["text"], a.get("timeout", 10)):
            os.kill(pid, 9)
            print(json.dumps({"ok": False, "missing": a["text"], "output": buf.decode(errors="replace"), "code": None}))
            sys.exit(0)
    elif a["type"] == "send":
        os.write(fd, a["text"].encode())
    elif a["type"] == "touch":
        open(a["path"], "a").close()
    elif a["type"] == "sleep":
        time.sleep(a["seconds"])

end = time.time() + 10
while time.time() < end and pump(0.05):
    pass
try:
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
except ChildProcessError:
    code = None
print(json.dumps({"ok": True, "output": buf.decode(errors="replace"), "code": code}))
