"""The host's channel: JSON lines on PYROMETER_STATUS_FD, one record per line, and the
failures a request can end with."""

import json
import math
import os
import traceback


PROTOCOL = 1
EXIT_FAILED = 2
EXIT_NO_TORCH = 3


class Status:
    def __init__(self):
        self._out = None
        fd = os.environ.pop("PYROMETER_STATUS_FD", "")
        if fd.isdigit():
            try:
                os.set_inheritable(int(fd), False)
                self._out = os.fdopen(int(fd), "w", buffering=1)
            except OSError:
                self._out = None

    def emit(self, event, **fields):
        line = json.dumps(dict(event=event, **fields), allow_nan=False, default=str)
        if self._out is None:
            print(line, flush=True)
            return
        try:
            self._out.write(line + "\n")
            self._out.flush()
        except (OSError, ValueError):
            self._out = None

    def stream(self, event, lists, **fields):
        """An event whose lists may be long, one record per line: the host assembles them."""
        self.emit("begin", of=event, **fields)
        for name, items in lists.items():
            for item in items:
                self.emit("item", of=event, list=name, item=item)
        self.emit("end", of=event)


STATUS = Status()


class Failure(Exception):
    """A request that cannot be served: kind names the case, message says what to do."""

    def __init__(self, kind, message, detail=None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.detail = detail or []


def traceback_tail(limit=6):
    lines = traceback.format_exc().strip().splitlines()
    return lines[-limit:]


def finite(value):
    return value if value is None or math.isfinite(value) else None
