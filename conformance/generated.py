"""Generated tests, written as Hypothesis and schemathesis users expect: a decorator names where the cases come
from, and the test runs once per case, the case arriving as an argument.

    @pytest.mark.rule("MET-PAG-005")
    @cases(page_size=st.integers(min_value=2, max_value=2159))
    def test_page_never_exceeds_any_page_size(metrics_api: RestClient, page_size: int) -> None:
        ...

A source is a Hypothesis strategy, the requests of one documented operation (`operation_requests`), or a function
of the test's fixtures and parameters that returns either: `lambda known: container_ranges(last_index=known.last)`
draws ranges inside the index the test reads. How many cases are drawn follows the run's profile; how and where
they are drawn (before the test's call, or read from what an earlier run drew) is the run's business, never the
test's. Under the same seed the same cases come, so the requests and their reproducers are the same.

A value the run learns only while the test is set up (a container ID, the chain a route serves) is an argument of
the source like any fixture: `lambda method, known: invalid_params(method, fixed={"id": known.container["id"]})`.

Every case is judged: a violation one case shows is recorded and the next case still runs, as independent checks
do (`conformance.checks.independently`); the test fails at its end with every distinct violation. Anything else
(the target stopped answering) ends the test at once.
"""
from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Any, TypeVar
from collections.abc import Callable, Mapping, Sequence

from hypothesis import strategies as st

F = TypeVar("F", bound=Callable[..., Any])
#: The fixture through which the run hands a generated test its cases (conformance.plugin provides it).
CASES_FIXTURE = "generated_cases"
#: Where the decorator keeps what it names on the test function.
SPEC_ATTRIBUTE = "__conformance_cases__"


@dataclass(frozen=True)
class OperationRequests:
    """The requests schemathesis generates for one documented operation: its examples and coverage cases (up to
    `limit`, the profile's examples by default), then fuzzed ones with each set of fixed path parameters in `paths`
    (values the target serves, so that generated queries reach the route's checks)."""

    api: str
    label: str                              # "GET /v1/networks/{network}/blockchains"
    paths: tuple[Mapping[str, str], ...] = ({},)
    limit: int | None = None


def operation_requests(api: str, label: str, *, path: Mapping[str, str] | None = None,
                       paths: Sequence[Mapping[str, str]] | None = None, limit: int | None = None) -> OperationRequests:
    """The generated requests of one operation of `api`, as a source of `cases`: `path` fixes path parameters,
    or `paths` several sets of them in turn."""
    return OperationRequests(api, label, tuple(dict(fixed) for fixed in (paths or [path or {}])), limit)


Source = st.SearchStrategy[Any] | OperationRequests | Callable[..., "st.SearchStrategy[Any] | OperationRequests"]


@dataclass(frozen=True)
class CasesSpec:
    """What `@cases` names on a test: argument name -> source, and the test function itself."""

    sources: Mapping[str, Source]
    test: Callable[..., Any]

    def resolved(self, arguments: Mapping[str, Any]) -> dict[str, st.SearchStrategy[Any] | OperationRequests]:
        """Each source, a function of fixtures and parameters called with those of `arguments`."""
        out = {}
        for name, source in self.sources.items():
            if isinstance(source, (st.SearchStrategy, OperationRequests)):
                out[name] = source
            else:
                wanted = inspect.signature(source).parameters
                out[name] = source(**{parameter: arguments[parameter] for parameter in wanted})
        return out

    def needs(self) -> set[str]:
        """Fixtures and parameters the sources are functions of."""
        return {parameter for source in self.sources.values()
                if not isinstance(source, (st.SearchStrategy, OperationRequests))
                for parameter in inspect.signature(source).parameters}


def cases(**sources: Source) -> Callable[[F], F]:
    """Decorator: the test runs once for each case drawn from each named source, the case passed as that
    argument (with several sources, their cases are drawn together as tuples)."""
    if not sources:
        raise TypeError("cases() names at least one source: @cases(page_size=st.integers(...))")

    def decorate(test: F) -> F:
        signature = inspect.signature(test)
        missing = [name for name in sources if name not in signature.parameters]
        if missing:
            raise TypeError(f"{test.__name__} has no argument {', '.join(missing)} for its cases")
        spec = CasesSpec(dict(sources), test)
        kept = [parameter for name, parameter in signature.parameters.items() if name not in sources]
        needed = spec.needs() - {parameter.name for parameter in kept}
        extra = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY) for name in sorted(needed)]
        given = inspect.Parameter(CASES_FIXTURE, inspect.Parameter.KEYWORD_ONLY)

        @functools.wraps(test)
        def run(*args: Any, **kwargs: Any) -> None:
            drawn = kwargs.pop(CASES_FIXTURE)
            for name in needed:
                kwargs.pop(name)
            drawn.run(test, args, kwargs)

        # pytest reads a test's fixtures from its signature: the case arguments are not fixtures, the fixtures the
        # sources need and the run's cases are.
        parameters = kept + extra + [given]
        run.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]  # read by inspect
        setattr(run, SPEC_ATTRIBUTE, spec)
        return run  # type: ignore[return-value]  # takes the test's place, called by pytest as the test was
    return decorate


def spec_of(function: Any) -> CasesSpec | None:
    """What `@cases` named on a test function, if it is a generated test."""
    return getattr(function, SPEC_ATTRIBUTE, None)
