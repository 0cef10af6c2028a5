"""Crash containment: an exception inside one feature for one document never ends the server.

:func:`guard` wraps a feature handler. A request that fails is answered with a JSON-RPC
internal error naming the feature, and the traceback is logged (``window/logMessage`` and
stderr); a notification that fails is logged and dropped. Errors the handler raises on purpose
(:class:`~pygls.exceptions.JsonRpcException`) pass through unchanged.
"""

from __future__ import annotations

import functools
import inspect
import logging
import traceback
from collections.abc import Callable
from typing import Any, Protocol

from pygls.exceptions import JsonRpcException, JsonRpcInternalError

log = logging.getLogger("action_lsp.server")


class Reporter(Protocol):
    def report_crash(self, feature: str, exc: BaseException) -> None: ...


def _fail(reporter: Reporter, feature: str, exc: Exception, is_request: bool) -> Any:
    try:
        reporter.report_crash(feature, exc)
    except Exception:  # the reporter itself must not take the server down
        log.exception("reporting a crash in %s failed", feature)
    if is_request:
        raise JsonRpcInternalError(
            message=f"action-lsp: {feature} failed: {type(exc).__name__}: {exc}",
            data={"traceback": traceback.format_exception(exc)},
        ) from exc
    return None


def guard(
    reporter: Reporter, feature: str, handler: Callable[..., Any], *, is_request: bool = True
) -> Callable[..., Any]:
    """``handler`` wrapped so that its exceptions become error responses and log messages."""
    if inspect.iscoroutinefunction(handler):

        @functools.wraps(handler)
        async def run_async(*args: Any, **kwargs: Any) -> Any:
            try:
                return await handler(*args, **kwargs)
            except JsonRpcException:
                raise
            except Exception as exc:
                return _fail(reporter, feature, exc, is_request)

        return run_async

    if inspect.isgeneratorfunction(handler):  # (pygls runs what it yields, then resumes it)

        @functools.wraps(handler)
        def run_generator(*args: Any, **kwargs: Any) -> Any:
            try:
                return (yield from handler(*args, **kwargs))
            except JsonRpcException:
                raise
            except Exception as exc:
                return _fail(reporter, feature, exc, is_request)

        return run_generator

    @functools.wraps(handler)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return handler(*args, **kwargs)
        except JsonRpcException:
            raise
        except Exception as exc:
            return _fail(reporter, feature, exc, is_request)

    return run
