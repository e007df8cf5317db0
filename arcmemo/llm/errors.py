"""What can go wrong with a model call, sorted by what the caller should do about it.

- `LLMError`: this call failed (a bad request, an unreadable answer, a closed client).
  The task that made it records the failure and goes on.
- `EndpointFatal(LLMError)`: the endpoint cannot serve this run at all (401, 403, 404, an
  unknown model, no quota, the embedded model missing, a parameter the model does not
  take). The run must stop; the client raises it again for every later call.
- `EndpointUnavailable(LLMError)`: transient faults (429, 5xx, dropped connections,
  malformed bodies, hangs) used up the call's retry budget. The task that needed the call
  was not really attempted: `--resume` should try it again.
- `TransientError`: raised by a backend for one attempt worth retrying; the client's retry
  loop (retry.py) turns it into a retry or, at the end, into EndpointUnavailable.
"""

from __future__ import annotations

from arcmemo.core.errors import ArcmemoError


class LLMError(ArcmemoError, RuntimeError):
    """A model call failed for good: a permanent error, or a transient one after all retries."""

    def __init__(self, message: str, *, status: int | None = None, transient: bool = False,
                 model: str | None = None, step: str | None = None, attempts: int = 0):
        super().__init__(message)
        self.status = status
        self.transient = transient
        self.model = model
        self.step = step
        self.attempts = attempts

    def again(self, **changes) -> LLMError:
        """A fresh exception of the same class and message (raised again for another call)."""
        fields = dict(status=self.status, transient=self.transient, model=self.model, step=self.step,
                      attempts=0)
        fields.update(changes)
        return type(self)(str(self), **fields)


class EndpointFatal(LLMError):
    """The endpoint or model cannot serve this run (authentication, not found, no quota,
    a parameter the model does not take): stop the run."""


class EndpointUnavailable(LLMError):
    """Transient endpoint faults outlasted the call's retry budget: the task was not attempted."""

    def __init__(self, message: str, **kwargs):
        kwargs.setdefault("transient", True)
        super().__init__(message, **kwargs)


class UnsupportedParameter(EndpointFatal):
    """A call asked a model for something its traits say it does not take (models.yaml)."""


class TransientError(Exception):
    """A fault worth retrying; `retry_after` (seconds) is the server's Retry-After, if any."""

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


__all__ = ["LLMError", "EndpointFatal", "EndpointUnavailable", "UnsupportedParameter", "TransientError"]
