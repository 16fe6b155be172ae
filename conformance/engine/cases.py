"""The cases of generated tests (`conformance.generated.cases`): drawn while the test is set up, in the main
thread, and run one after another in its call.

Drawing before the call keeps Hypothesis out of the threads that run calls at once (it is not made for them), and
lets the run send a test's requests while the next test's cases are drawn. Under a profile that shrinks failing
examples (thorough), Hypothesis runs the test itself, so that a failure is shrunk to a minimal case; such a test
runs alone. The cases are the ones Hypothesis draws under the run's settings and seed, in order: the same seed
gives the same requests and reproducers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Callable, Mapping, Sequence

import hypothesis
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance import evidence
from conformance import schemathesis_support as generated_requests
from conformance.engine.store import CaseStore
from conformance.generated import CasesSpec, OperationRequests, spec_of
from conformance.profiles import Profile


def examples_of(strategy: st.SearchStrategy[Any], seed: int = 0) -> list[Any]:
    """What Hypothesis draws from `strategy` under the run's settings (`max_examples` of them) and `seed`, in
    order: the same seed draws the same values."""
    out: list[Any] = []

    @hypothesis.seed(seed)
    @given(value=strategy)
    def draw(value: Any) -> None:
        out.append(value)

    draw()
    return out


def operation_cases(source: OperationRequests, profile: Profile, seed: int = 0) -> list[Any]:
    """The requests schemathesis generates for one operation, as they are sent (`WireCase`): its examples and
    coverage cases, then the fuzzed ones with the path values fixed."""
    op = generated_requests.operation(source.api, source.label)
    limit = source.limit if source.limit is not None else profile.examples
    # Drawn first, sent afterwards: Hypothesis never sees a request, so a target that stops answering ends the
    # test at once instead of being shrunk against.
    cases = generated_requests.explicit_cases(op, limit=limit) + examples_of(
        generated_requests.fuzzed_cases(op, path_parameters=[dict(fixed) for fixed in source.paths]), seed)
    return [generated_requests.wire_case(source.api, case) for case in cases]


def draw(sources: Mapping[str, st.SearchStrategy[Any] | OperationRequests], profile: Profile,
         seed: int = 0) -> list[dict[str, Any]]:
    """The cases of a generated test: one mapping of argument name to value per case."""
    if len(sources) == 1:
        (name, source), = sources.items()
        values = operation_cases(source, profile, seed) if isinstance(source, OperationRequests) \
            else examples_of(source, seed)
        return [{name: value} for value in values]
    if any(isinstance(source, OperationRequests) for source in sources.values()):
        raise TypeError("the requests of an operation are a test's only source of cases")
    names = list(sources)
    return [dict(zip(names, values, strict=True)) for values in examples_of(st.tuples(*sources.values()), seed)]


@dataclass
class DrawnCases:
    """What the `generated_cases` fixture hands a generated test: its cases, or the strategies to give
    Hypothesis when it runs the test itself."""

    cases: Sequence[Mapping[str, Any]] | None
    strategies: Mapping[str, st.SearchStrategy[Any]] | None = None

    def run(self, test: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
        """Calls `test` with each case; a violation of one case is recorded and the next case still runs."""
        if self.strategies is not None:
            @given(**self.strategies)
            def shrinking(**case: Any) -> None:
                test(*args, **kwargs, **case)
            shrinking()
            return
        for case in self.cases or ():
            with evidence.independently():
                test(*args, **kwargs, **case)


def drawn_for(request: pytest.FixtureRequest, profile: Profile, store: CaseStore | None = None,
              seed: int = 0) -> DrawnCases:
    """The cases of the test `request` sets up: kept from an earlier run (`store`), else drawn now (and kept, when
    what they are drawn from can name them in the store)."""
    spec: CasesSpec | None = spec_of(request.function)
    if spec is None:
        raise TypeError(f"{request.node.nodeid} asks for generated cases without @cases")
    callspec = getattr(request.node, "callspec", None)
    params = {**(dict(callspec.params) if callspec is not None else {}), "profile": profile}
    arguments = {name: params[name] if name in params else request.getfixturevalue(name) for name in spec.needs()}
    sources = spec.resolved(arguments)
    if profile.shrink and not any(isinstance(source, OperationRequests) for source in sources.values()):
        return DrawnCases(None, {name: source for name, source in sources.items()
                                 if isinstance(source, st.SearchStrategy)})
    key = kept_key(request.node.nodeid, sources, spec.needs() <= params.keys()) if store is not None else None
    if store is None or key is None:
        return DrawnCases(draw(sources, profile, seed))
    return DrawnCases(store.kept_or_drawn(key, lambda: draw(sources, profile, seed)))


def kept_key(nodeid: str, sources: Mapping[str, Any], at_collection: bool) -> str | None:
    """A test's name in the store, or None when its cases cannot be named there: its ID (`kept_as`) and, when its
    sources were made from values the run learned, those sources as written (the requests of an operation say every
    value they were made with; a strategy may hide one in a function, so its cases are drawn afresh)."""
    if at_collection:
        return kept_as(nodeid)
    if all(isinstance(source, OperationRequests) for source in sources.values()):
        return kept_as(nodeid) + " " + repr(sorted(sources.items()))
    return None


def kept_as(nodeid: str) -> str:
    """A test's name in the store: its ID from the suite's own folder on, wherever the suite is installed."""
    marker = "conformance/suite/"
    return nodeid[nodeid.find(marker):] if marker in nodeid else nodeid


def shrinks_in_its_call(item: pytest.Item, profile: Profile) -> bool:
    """Whether Hypothesis runs the test in its call (a generated test under a shrinking profile): it runs alone."""
    spec = spec_of(getattr(item, "function", None))
    return bool(profile.shrink and spec is not None
                and not any(isinstance(source, OperationRequests) for source in spec.sources.values()))
