"""The program faithprobe starts for a checker passed to `faithprobe.run(checker=fn)`: it copies
faithprobe's requests to the Python process that called `run` (over the Unix socket named by
`NAME.sock` in the folder `FAITHPROBE_PY_SOCKETS` names), where the function runs, and the answers back."""
from __future__ import annotations

import os
import socket
import sys
import threading


def main() -> int:
    folder = os.environ.get("FAITHPROBE_PY_SOCKETS")
    if not folder or len(sys.argv) != 2:
        print("faithprobe relay: started by faithprobe.run(checker=...) only (FAITHPROBE_PY_SOCKETS, NAME)",
              file=sys.stderr)
        return 2
    path = os.path.join(folder, sys.argv[1] + ".sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)

    def pump_in() -> None:
        stdin = sys.stdin.buffer
        while True:
            chunk = stdin.read1(65536) if hasattr(stdin, "read1") else stdin.read(65536)
            if not chunk:
                break
            s.sendall(chunk)
        s.shutdown(socket.SHUT_WR)

    threading.Thread(target=pump_in, daemon=True).start()
    out = sys.stdout.buffer
    while True:
        data = s.recv(65536)
        if not data:
            break
        out.write(data)
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
