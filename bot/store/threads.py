"""Which connection, and from async code which thread, serves a store method: declared where
the method is written, by `@reads` or `@writes`.

- `@reads`: it only reads. It runs on the calling thread's own read connection (in WAL mode
  a reader never waits for a writer), and so does `await store.aio.<method>(...)`.
- `@writes`: it writes, on the writer connection, one call at a time (each is one statement
  or one transaction). Awaited, it is tried once with no busy wait, and handed to the store's
  writer thread when another writer holds SQLite's lock (see `OffLoop` in `bot.store.store`).

Either way SQLite's file-level failures (read-only, full, locked past the timeout, I/O) become
one StorageError. The types survive both forms: to an IDE, `store.get_pr(repo, n)` is a
`PullRequest | None` and `store.aio.get_pr(repo, n)` an `Awaitable[PullRequest | None]`.
"""

from __future__ import annotations

import types
from collections.abc import Awaitable, Callable
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from bot.store.base import Tables, clear_storage_errors

S = TypeVar("S", bound=Tables)
P = ParamSpec("P")
T = TypeVar("T")


class Awaited:
    """`store.aio`: a store method read through it comes back awaitable (`StoreMethod.__get__`),
    run where its declaration says."""

    def awaited(self, method: StoreMethod[Any, P, T]) -> Callable[P, Awaitable[T]]:
        raise NotImplementedError


class StoreMethod(Generic[S, P, T]):
    """A method of a table family (`S`), marked as a read or a write."""

    def __init__(self, method: Callable[Concatenate[S, P], T], *, reads: bool):
        self.reads = reads
        self._run = clear_storage_errors(method, read=reads)
        self.__wrapped__ = method  # its signature and docstring, for `help` and `inspect`
        self.__name__ = method.__name__
        self.__qualname__ = method.__qualname__
        self.__doc__ = method.__doc__

    def __call__(self, store: S, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._run(store, *args, **kwargs)

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> StoreMethod[S, P, T]: ...

    @overload
    def __get__(  # type: ignore[overload-overlap]  # `store.aio` is both, statically
        self, obj: Awaited, owner: type | None = None
    ) -> Callable[P, Awaitable[T]]: ...

    @overload
    def __get__(self, obj: S, owner: type | None = None) -> Callable[P, T]: ...

    def __get__(self, obj: object, owner: type | None = None) -> object:
        if obj is None:
            return self
        if isinstance(obj, Awaited):
            return obj.awaited(self)
        return types.MethodType(self, obj)


def reads(method: Callable[Concatenate[S, P], T]) -> StoreMethod[S, P, T]:
    """Mark a store method that only reads (see the module's docstring)."""
    return StoreMethod(method, reads=True)


def writes(method: Callable[Concatenate[S, P], T]) -> StoreMethod[S, P, T]:
    """Mark a store method that writes (see the module's docstring)."""
    return StoreMethod(method, reads=False)


def store_methods(family: type) -> dict[str, StoreMethod[Any, Any, Any]]:
    """The marked methods of a table family (and its bases), by name."""
    found: dict[str, StoreMethod[Any, Any, Any]] = {}
    for cls in reversed(family.__mro__):
        found |= {n: m for n, m in vars(cls).items() if isinstance(m, StoreMethod)}
    return found
